// Redacting text that arrives in pieces (streamed model deltas): what may be passed on now, and the
// tail held back because it could still grow into a secret or one of its forms, wrapped ones too.
// The matcher (index.ts) hands out these streams.

import { breakStart } from './breaks.ts'
import { ANYWHERE_LENGTH, type FormKind } from './forms.ts'
import { LONG_FORM, longStreamTail } from './long.ts'
import type { Found } from './wrapped.ts'

/**
 * Redacts a stream of pieces: `push` returns what can be passed on now, holding back a tail that
 * could still grow into a secret; `flush` returns the rest at the end. Concatenated, the outputs
 * equal `redact` of the concatenated input (up to where a cut falls).
 */
export interface SecretStream {
  push(piece: string): string
  flush(): string
}

export const PASS_THROUGH: SecretStream = { push: (piece) => piece, flush: () => '' }

/**
 * The streams of a matcher of `forms` (longest first, each of a kind): `matches` finds the matches in
 * a text, in order; `marker` says what replaces each.
 */
export function secretStreams(
  forms: readonly string[],
  kinds: ReadonlyMap<string, FormKind>,
  matches: (text: string) => readonly Found[],
  marker: (name: string) => string,
): () => SecretStream {
  // Tails that may still grow into a match, built on the first stream. Plain forms: every proper
  // prefix, and short forms whole (a word match needs the next character to be decided). Encoded
  // forms: every proper prefix, looked up with the line breaks taken out (hex in lower case). Long
  // forms are compared with the tail instead (long.ts): their prefixes would take the square of
  // their length.
  let tails:
    | { plain: Set<string>; plainAlphabet: Set<string>; plainLongest: number; base64: Set<string>; hex: Set<string>; encodedAlphabet: Set<string>; encodedLongest: number }
    | undefined
  const tailSets = () => {
    const prefixes = (f: string, whole: boolean) => Array.from({ length: whole ? f.length : f.length - 1 }, (_, i) => f.slice(0, i + 1))
    const short = forms.filter((f) => f.length < LONG_FORM)
    const plain = short.filter((f) => kinds.get(f) === 'plain')
    const encodedForms = short.filter((f) => kinds.get(f) !== 'plain')
    const base64 = encodedForms.filter((f) => kinds.get(f) === 'base64')
    const hex = encodedForms.filter((f) => kinds.get(f) === 'hex')
    return {
      plain: new Set(plain.flatMap((f) => prefixes(f, f.length < ANYWHERE_LENGTH))),
      // Characters that occur in some form: a tail reaching past one that occurs in none cannot be a prefix.
      plainAlphabet: new Set(plain.join('')),
      plainLongest: plain.length ? plain[0]!.length : 0,
      base64: new Set(base64.flatMap((f) => prefixes(f, false))),
      hex: new Set(hex.flatMap((f) => prefixes(f, false))),
      encodedAlphabet: new Set(base64.join('') + hex.join('') + hex.join('').toUpperCase()),
      encodedLongest: encodedForms.length ? encodedForms[0]!.length : 0,
    }
  }
  const longHeld = longStreamTail(forms.filter((f) => f.length >= LONG_FORM), kinds)
  const held = (text: string) => Math.max(shortHeld(text), longHeld(text))
  const shortHeld = (text: string) => {
    const t = (tails ??= tailSets())
    let plainTail = 0
    let reach = 0
    while (reach < t.plainLongest && reach < text.length && t.plainAlphabet.has(text[text.length - 1 - reach]!)) reach++
    for (let k = reach; k > 0; k--) {
      if (t.plain.has(text.slice(text.length - k))) {
        plainTail = k
        break
      }
    }
    if (t.encodedLongest === 0) return plainTail
    // An encoded form may be cut anywhere, even inside a line break: its characters are gathered
    // backwards across whole line breaks (and one still arriving at the end), then looked up bare.
    const starts: number[] = []
    let bare = ''
    let i = breakStart(text, text.length, true)
    while (starts.length < t.encodedLongest - 1) {
      if (i > 0 && t.encodedAlphabet.has(text[i - 1]!)) {
        bare = text[--i] + bare
        starts.push(i)
        continue
      }
      if (starts.length === 0) break
      const b = breakStart(text, i, false)
      if (b <= 0 || !t.encodedAlphabet.has(text[b - 1]!)) break
      i = b
    }
    for (let k = starts.length; k > 0; k--) {
      const tail = bare.slice(bare.length - k)
      if (t.base64.has(tail) || t.hex.has(tail.toLowerCase())) return Math.max(plainTail, text.length - starts[k - 1]!)
    }
    return plainTail
  }
  return () => {
    // `before` is the last character passed on: the context a word match looks behind at.
    let pending = ''
    let before = ''
    const take = (final: boolean) => {
      const text = before + pending
      const from = before.length
      let cut = Math.max(from, final ? text.length : text.length - held(text))
      let out = ''
      let last = from
      for (const f of matches(text)) {
        if (f.start < from) continue // overlaps what was passed on already: the whole text would not match it either
        if (f.start >= cut) break
        // A match across the cut is complete already: it goes out whole, as its marker.
        if (f.end > cut) cut = f.end
        out += text.slice(last, f.start) + marker(f.name)
        last = f.end
      }
      if (cut > last) out += text.slice(last, cut)
      if (cut > from) before = text[cut - 1]!
      pending = text.slice(cut)
      return out
    }
    return {
      push(piece) {
        pending += piece
        return take(false)
      },
      flush: () => take(true),
    }
  }
}
