// Title rules, shared by both stores: sanitising (control, zero-width and bidi characters out,
// whitespace collapsed, at most 100 characters), the `title #N` numbering of a lineage and the
// `title (N)` of automatic ones.

import { MAX_TITLE_LENGTH, UsageError } from 'agent/sdk'

// C0/C1 controls, zero-width characters, bidi embeddings/overrides/isolates, BOM.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g

/** The stored form of a title, or undefined for an empty one. Throws UsageError when too long. */
export function sanitizeTitle(raw: string | null | undefined): string | undefined {
  if (raw === null || raw === undefined) return undefined
  const title = String(raw).replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim()
  if (title === '') return undefined
  if ([...title].length > MAX_TITLE_LENGTH) {
    throw new UsageError(`a session title is at most ${MAX_TITLE_LENGTH} characters (this one has ${[...title].length})`)
  }
  return title
}

const NUMBERED = /^(.*) #(\d+)$/

/** `name #3` → { base: 'name', number: 3 }; `name` → { base: 'name', number: 1 }. */
export function splitNumber(title: string): { base: string; number: number } {
  const match = NUMBERED.exec(title)
  return match ? { base: match[1]!, number: Number(match[2]) } : { base: title, number: 1 }
}

/** Escapes LIKE wildcards for `LIKE ? ESCAPE '\\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/** `base #n`, shortening the base so the whole stays within the title limit. */
export function numbered(base: string, n: number): string {
  return withSuffix(base, ` #${n}`)
}

/** `base (n)`: how an automatic title is made unique (not `#n`, which marks a continuation). */
export function counted(base: string, n: number): string {
  return withSuffix(base, ` (${n})`)
}

function withSuffix(base: string, suffix: string): string {
  const chars = [...base]
  const room = MAX_TITLE_LENGTH - suffix.length
  return (chars.length > room ? chars.slice(0, room).join('').trimEnd() : base) + suffix
}

/** Bound on lineage walks, so a corrupted parent cycle cannot hang a lookup. */
export const MAX_HOPS = 10_000

/** Of `candidates` (newest first, titles like `title #%`), the newest numbered variant of `title`. */
export function numberedHit<T extends { title: string }>(candidates: readonly T[], title: string): T | undefined {
  return candidates.find((c) => c.title !== title && splitNumber(c.title).base === title)
}

/** `base #N` past the highest number in `taken` (titles equal to `base` or like `base #%`); `base` when none is. */
export function nextNumbered(base: string, taken: readonly string[]): string {
  let max = 0
  for (const t of taken) {
    const split = splitNumber(t)
    if (split.base === base) max = Math.max(max, split.number)
    else if (t === base) max = Math.max(max, 1)
  }
  return max === 0 ? base : numbered(base, max + 1)
}

/** An automatic title through the known-secrets redactor like a message; what it marks is dropped, not shown. */
export function automaticTitleBase(raw: string, redact: (text: string) => string): string | undefined {
  const cleared = redact(String(raw)).replace(/\[REDACTED:[^\]]*\]/g, ' ').replace(/\s+/g, ' ').trim()
  return sanitizeTitle([...cleared].slice(0, MAX_TITLE_LENGTH).join(''))
}
