// What `agent sessions` prints is redacted on the way out with the secrets known now: a value that
// became known after its message was stored (the agent appended it to .env during the run) was
// stored in clear, and stays so (stored rows are not rewritten), but is never printed.

import { type SessionSearchHit, type SessionStore, type StoredMessage } from 'agent/sdk'
import { partsText } from './rows.ts'
import { queryTerms } from './search.ts'

/** Words of a snippet made here, as many as the backends' own (16). */
const SNIPPET_WORDS = 16

/**
 * The hits with their titles and snippets redacted. A snippet of a message that holds a secret is
 * made again from the redacted message: the backend's own may begin inside the secret or mark a
 * match inside it (`[dpl]-7f3k…`), and neither is the secret as written, so redacting the snippet
 * alone would not find it.
 */
export async function shownHits(hits: SessionSearchHit[], store: SessionStore, redact: (text: string) => string, query: string): Promise<SessionSearchHit[]> {
  const texts = new Map<number, string>()
  for (const sessionId of new Set(hits.map((h) => h.sessionId))) {
    for (const m of await store.messages(sessionId)) texts.set(m.id, indexedText(m))
  }
  return hits.map((hit) => {
    const text = texts.get(hit.messageId)
    const cleared = text === undefined ? undefined : redact(text)
    const snippet = cleared === undefined || cleared === text ? redact(hit.snippet) : snippetOf(cleared, query)
    return { ...hit, snippet, ...(hit.title ? { title: redact(hit.title) } : {}) }
  })
}

/** The text of a message the full-text index holds (its content column). */
function indexedText(m: StoredMessage): string {
  return typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? partsText(m.content) : ''
}

/** Up to SNIPPET_WORDS words around the first match of the query, matches in [brackets], as the backends write it. */
function snippetOf(text: string, query: string): string {
  const words = text.split(/\s+/).filter(Boolean)
  const terms = queryTerms(query).map((t) => t.word.toLowerCase())
  const matches = (word: string) => terms.some((term) => word.toLowerCase().includes(term))
  const first = Math.max(0, words.findIndex(matches))
  const start = Math.max(0, Math.min(first - SNIPPET_WORDS / 2, words.length - SNIPPET_WORDS))
  const shown = words.slice(start, start + SNIPPET_WORDS).map((w) => (matches(w) ? `[${w}]` : w))
  return `${start > 0 ? '…' : ''}${shown.join(' ')}${start + SNIPPET_WORDS < words.length ? '…' : ''}`
}
