// Full-text search over messages on SQLite (FTS5, bm25 ranking), and what both backends share: the
// words of a plain query, the filters, the hit. User text is turned into a safe query: every word is
// a quoted term (all required), a trailing `*` keeps a prefix search; `raw` passes FTS5 syntax
// through, and a syntax error becomes a one-line usage error.

import { UsageError, type SessionSearchHit, type SessionSearchOptions, type SqliteDatabase } from 'agent/sdk'

/** The words of a plain query (both backends): quotes and stars out, a trailing `*` marks a prefix. */
export function queryTerms(text: string): Array<{ word: string; prefix: boolean }> {
  const terms: Array<{ word: string; prefix: boolean }> = []
  for (const word of text.split(/\s+/)) {
    const clean = word.replace(/["*]/g, '').trim()
    // Words of punctuation only would be empty phrases after tokenising; they match nothing useful.
    if (!clean || !/[\p{L}\p{N}]/u.test(clean)) continue
    terms.push({ word: clean, prefix: word.endsWith('*') })
  }
  return terms
}

/** `deploy "prod db" config*` → `"deploy" "prod" "db" "config"*` (FTS5 operators lose their meaning). */
export function toFtsQuery(text: string): string {
  return queryTerms(text).map((t) => `"${t.word}"${t.prefix ? '*' : ''}`).join(' ')
}

/** The checks and limit both backends apply to search options. */
export function searchLimit(options: SessionSearchOptions): number {
  if (options.order !== undefined && options.order !== 'rank' && options.order !== 'recent') throw new UsageError('search order must be "rank" or "recent"')
  return Math.min(500, Math.max(1, Math.floor(options.limit ?? 20)))
}

export interface HitRow {
  id: number
  session_id: string
  role: SessionSearchHit['role']
  created_at: number
  title: string | null
  source: string
  snippet: string
  rank: number
}

/** The filters of `options` as conditions on `m` (messages) and `s` (sessions); their values go to `params`. */
export function searchFilters(options: SessionSearchOptions, params: unknown[], placeholder: (n: number) => string): string[] {
  const where: string[] = []
  for (const [column, value] of [['s.source', options.source], ['m.session_id', options.sessionId], ['m.role', options.role]] as const) {
    if (!value) continue
    params.push(value)
    where.push(`${column} = ${placeholder(params.length)}`)
  }
  return where
}

export function toHit(r: HitRow): SessionSearchHit {
  return {
    sessionId: r.session_id,
    messageId: Number(r.id),
    role: r.role,
    snippet: r.snippet.replace(/\s+/g, ' ').trim(),
    createdAt: Number(r.created_at),
    ...(r.title ? { title: r.title } : {}),
    source: r.source,
    rank: Number(r.rank),
  }
}

export function searchMessages(db: SqliteDatabase, query: string, options: SessionSearchOptions = {}): SessionSearchHit[] {
  const match = options.raw ? query.trim() : toFtsQuery(query)
  if (!match) throw new UsageError('the search query has no words to look for')
  const limit = searchLimit(options)
  const params: unknown[] = [match]
  const where = ['messages_fts MATCH ?', ...searchFilters(options, params, () => '?')]
  const sql = `
    SELECT m.id, m.session_id, m.role, m.created_at, s.title, s.source,
           snippet(messages_fts, 0, '[', ']', '…', 16) AS snippet, bm25(messages_fts) AS rank
    FROM messages_fts
    JOIN messages m ON m.id = messages_fts.rowid
    JOIN sessions s ON s.id = m.session_id
    WHERE ${where.join(' AND ')}
    ORDER BY ${options.order === 'recent' ? 'messages_fts.rowid DESC' : 'rank'}
    LIMIT ?`
  let rows: HitRow[]
  try {
    rows = db.prepare(sql).all(...params, limit) as HitRow[]
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (/fts5|syntax|no such column|unterminated/i.test(message)) throw new UsageError(`invalid search query: ${message}`, { cause: error })
    throw error
  }
  return rows.map(toHit)
}
