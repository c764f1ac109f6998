// Output handling shared by every backend: an in-order collector of stdout and stderr with a hard
// memory bound, and the cap applied to what the model sees (head and tail kept, the middle cut).
//
// Known secrets are redacted from the whole output before the cap (manager.ts), but the memory
// bounds here and in persistent-shell.ts (and an editor's own bound) cut the raw output before
// anything redacts it: a secret across such a cut would leave a part of itself that no longer matches
// it. So what is kept next to such a cut is redacted as it is read (the secrets whole in it become
// markers), and then the raw text between the cut and the nearest marker goes, up to a margin: the
// longest form of any known secret, less one. What is left of a secret cut there is no longer than
// that and sits right at the cut, so nothing of it stays; a secret wholly on the kept side, even one
// starting within the margin, is a marker by then and stays one.
// Limit: a form wrapped across line breaks (base64 at 76 columns) is longer than the form itself by
// its breaks; a part of it past the margin survives the cut (whole secrets never do).
//
// The end of a running process's output is a cut of its own, one that is still open: a secret being
// printed in two writes shows there as a prefix, which matches nothing yet. What is read there
// (`last` with `open`) holds back a raw end that could still grow into a secret, as the matcher's
// stream does for live notifications (sdk/secrets/stream.ts); the next read, or the one after the
// exit, shows it whole (as its marker) or, if no secret came of it, as it is.

import { isRedactableSecret, secretForms, secretMarker, secretMatcher, type SecretEntry } from 'agent/sdk'

/** Clears what is kept next to a cut of raw output of any part of a secret cut there. */
export interface CutGuard {
  /** `text` kept after a cut at its start: redacted, its raw start up to the margin dropped. */
  afterCut(text: string): string
  /** `text` kept before a cut at its end: redacted, its raw end up to the margin dropped. */
  beforeCut(text: string): string
  /** `text` whose end is still being written: redacted, a raw end that could begin a secret held back. */
  openEnd(text: string): string
}

/** The guard for the secrets known when the kept text is read (not when it was cut). */
export type CutGuardSource = () => CutGuard

const NO_GUARD: CutGuard = { afterCut: (text) => text, beforeCut: (text) => text, openEnd: (text) => text }
/** Secrets that cannot be read: everything on the kept side of a cut goes. */
const WITHHOLD: CutGuard = { afterCut: () => '', beforeCut: () => '', openEnd: () => '' }
export const noCutGuard: CutGuardSource = () => NO_GUARD

const margins = new WeakMap<readonly SecretEntry[], number>()

/** The longest form of any of `entries` (as the matcher matches them), less one; 0 without secrets. */
export function cutMargin(entries: readonly SecretEntry[]): number {
  const known = margins.get(entries)
  if (known !== undefined) return known
  let longest = 0
  for (const { value } of entries) {
    if (!isRedactableSecret(value)) continue
    for (const form of secretForms(value)) longest = Math.max(longest, form.length)
  }
  const margin = Math.max(0, longest - 1)
  if (Object.isFrozen(entries)) margins.set(entries, margin)
  return margin
}

/** A marker in redacted text (its name holds no `]` or blank), as a pattern source. */
const MARKER = secretMarker('\u0000').replace(/[[\]]/g, '\\$&').replace('\u0000', '[^\\]\\s]*')

/** The guard for the secrets `settings` knows now (.env looked at: the command may have written it). */
export function secretCutGuard(settings: { secretEntries(options?: { fresh?: boolean }): SecretEntry[] }): CutGuard {
  let entries: SecretEntry[]
  try {
    entries = settings.secretEntries({ fresh: true })
  } catch {
    return WITHHOLD
  }
  const margin = cutMargin(entries)
  if (margin === 0) return NO_GUARD
  const matcher = secretMatcher(entries)
  const { redact } = matcher
  return {
    afterCut(text) {
      const redacted = redact(text)
      const first = new RegExp(MARKER).exec(redacted)
      return redacted.slice(Math.min(margin, first ? first.index : redacted.length))
    },
    beforeCut(text) {
      const redacted = redact(text)
      let end = 0
      for (const m of redacted.matchAll(new RegExp(MARKER, 'g'))) end = m.index + m[0].length
      return redacted.slice(0, Math.max(end, redacted.length - margin))
    },
    // The stream's hold-back, not a second matcher: what one push passes on is the text redacted
    // up to the tail that could still grow into a secret.
    openEnd: (text) => matcher.stream().push(text),
  }
}

/** The cut marker, as the cap writes it. */
export const omittedNote = (n: number) => `[… ${n} characters omitted …]`

/** Keeps at most `limit` characters: the first 40 % and the last 60 %, with a note of what was cut. */
export function capOutput(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false }
  const head = Math.floor(limit * 0.4)
  const tail = limit - head
  const omitted = text.length - head - tail
  return { text: `${text.slice(0, head)}\n${omittedNote(omitted)}\n${text.slice(text.length - tail)}`, truncated: true }
}

/**
 * Collects a process's output in arrival order. Past `2 × limit` characters only the head and a
 * rolling tail are kept, so a chatty command cannot exhaust memory. Where characters were dropped,
 * both sides of the gap are guarded (see above) when read.
 */
export class OutputBuffer {
  private head = ''
  private tail = ''
  private dropped = 0
  private readonly limit: number
  private readonly guard: CutGuardSource

  constructor(limit: number, guard: CutGuardSource = noCutGuard) {
    this.limit = limit
    this.guard = guard
  }

  push(chunk: string): void {
    if (this.head.length < this.limit) {
      const room = this.limit - this.head.length
      this.head += chunk.slice(0, room)
      chunk = chunk.slice(room)
    }
    if (!chunk) return
    this.tail += chunk
    if (this.tail.length > this.limit) {
      this.dropped += this.tail.length - this.limit
      this.tail = this.tail.slice(this.tail.length - this.limit)
    }
  }

  /** Everything kept, with a marker where characters were dropped (both sides of the gap guarded). */
  text(): string {
    if (!this.dropped) return this.head + this.tail
    const guard = this.guard()
    return `${guard.beforeCut(this.head)}\n${omittedNote(this.dropped)}\n${guard.afterCut(this.tail)}`
  }

  /**
   * The last `n` characters seen (for polling and notifications), guarded where they were cut; at
   * most the rolling tail once characters were dropped (what came before it is not contiguous).
   * `open`: more may still arrive (the process runs), so the end is guarded too (see above).
   */
  last(n: number, open = false): string {
    const all = this.dropped ? this.tail : this.head + this.tail
    const cut = this.dropped || all.length > n
    if (!cut && !open) return all
    const guard = this.guard()
    const window = cut ? guard.afterCut(all.slice(Math.max(0, all.length - n))) : all
    return open ? guard.openEnd(window) : window
  }
}
