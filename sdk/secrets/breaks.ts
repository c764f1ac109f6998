// Line breaks inside encoded forms (blanks, `\r?\n`, blanks, as tools that wrap base64 or hex print
// them): which characters are encoded ones, where such a break starts and ends, the encoded character
// across one, and text with those breaks taken out (each character mapped back to where it was).
// Used to find wrapped forms (wrapped.ts) and to hold back a streamed tail that may still
// grow into one (stream.ts).

/** Most blanks matched on each side of a line break inside an encoded form. */
export const BREAK_BLANKS = 32
/**
 * Characters of base64, base64url and hex (encoded forms are made of these only), each numbered
 * from 1 to 63, both cases of a letter alike: pieces of forms around a line break are compared in
 * either case, as 6 bits a character.
 */
const ENCODED = new Uint8Array(65536)
for (const [i, c] of [...'abcdefghijklmnopqrstuvwxyz0123456789+/=_-'].entries()) {
  ENCODED[c.charCodeAt(0)] = i + 1
  ENCODED[c.toUpperCase().charCodeAt(0)] = i + 1
}
/** A character's number (NaN, past the text's ends, gives 0: none). */
export const symbol = (code: number) => ENCODED[code | 0]!
export const isBlank = (code: number) => code === 32 || code === 9

/**
 * Where a complete line break (blanks, `\r?\n`, blanks) ending at `end` starts, or -1. With
 * `partial`, also a break still arriving: blanks, or blanks and `\r`.
 */
export function breakStart(text: string, end: number, partial: boolean): number {
  let i = end
  while (i > 0 && end - i < BREAK_BLANKS && isBlank(text.charCodeAt(i - 1))) i--
  const c = text.charCodeAt(i - 1)
  if (c === 10) i--
  else if (!partial) return -1
  else if (i < end || c !== 13) return i // blanks before a line break, or nothing of one
  if (text.charCodeAt(i - 1) === 13) i--
  const after = i
  while (i > 0 && after - i < BREAK_BLANKS && isBlank(text.charCodeAt(i - 1))) i--
  return i
}

/** Where a complete line break starting at `start` ends, or -1. */
export function breakEnd(text: string, start: number): number {
  let i = start
  while (i < text.length && i - start < BREAK_BLANKS && isBlank(text.charCodeAt(i))) i++
  if (text.charCodeAt(i) === 13) i++
  if (text.charCodeAt(i) !== 10) return -1
  const after = ++i
  while (i < text.length && i - after < BREAK_BLANKS && isBlank(text.charCodeAt(i))) i++
  return i
}

/** The encoded-alphabet character before (`step` -1) or after (+1) the one at `i`, across a line break; -1 if none. */
export function stepEncoded(text: string, i: number, step: -1 | 1): number {
  const j = i + step
  if (symbol(text.charCodeAt(j))) return j
  if (step < 0) {
    const b = breakStart(text, i, false)
    return b > 0 && symbol(text.charCodeAt(b - 1)) ? b - 1 : -1
  }
  const e = breakEnd(text, j)
  return e >= 0 && symbol(text.charCodeAt(e)) ? e : -1
}

/**
 * `text` without the line breaks an encoded form may have inside (blanks, `\r?\n`, blanks, between
 * two encoded-alphabet characters), and where each character left came from.
 */
export function unwrap(text: string): { bare: string; from: (at: number) => number } {
  // Where in `bare` each break was taken out, and how many characters were out up to there.
  const cuts: number[] = []
  const shifts: number[] = []
  const parts: string[] = []
  let last = 0
  let shift = 0
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
    let r = nl + 1
    while (r - nl - 1 < BREAK_BLANKS && isBlank(text.charCodeAt(r))) r++
    if (!symbol(text.charCodeAt(r))) continue
    const a = breakStart(text, r, false)
    if (a < last || !symbol(text.charCodeAt(a - 1))) continue
    parts.push(text.slice(last, a))
    shift += r - a
    cuts.push(r - shift)
    shifts.push(shift)
    last = r
  }
  parts.push(text.slice(last))
  const from = (at: number) => {
    let lo = 0
    let hi = cuts.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cuts[mid]! <= at) lo = mid + 1
      else hi = mid
    }
    return at + (lo ? shifts[lo - 1]! : 0)
  }
  return { bare: parts.join(''), from }
}
