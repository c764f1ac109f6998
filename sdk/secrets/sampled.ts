// Many literal forms searched at once: the lines of multi-line secrets (a 4096-bit key file has
// about 50). In a pattern they made redacting several times slower than everything else together:
// a key's lines start with any letter or digit, so the engine tried each of them at nearly every
// place of the text. Here, every form of 2 × GRAM - 1 characters or more holds, wherever it sits in
// the text, a whole piece of GRAM characters that starts at a multiple of GRAM from where the search
// starts: only those pieces of the text are looked up (by a hash of four of their characters, in a
// table of every piece of every form at every offset), and the forms a piece may be part of are
// compared there. The cost is a look-up every GRAM characters, whatever the number of forms.

import type { Search } from './long.ts'

/** Length of the pieces looked up. */
const GRAM = 16
/** Shortest form searched this way: one this long holds a whole piece at any alignment. */
export const SAMPLED_LEAST = 2 * GRAM - 1

/** The hash of the piece at `at`: four characters spread over it (the rest is compared on a hit). */
const hashAt = (text: string, at: number) => {
  let h = Math.imul(0x811c9dc5 ^ text.charCodeAt(at), 0x01000193)
  h = Math.imul(h ^ text.charCodeAt(at + 5), 0x01000193)
  h = Math.imul(h ^ text.charCodeAt(at + 10), 0x01000193)
  return Math.imul(h ^ text.charCodeAt(at + 15), 0x01000193)
}

/** A search for `forms` (each SAMPLED_LEAST characters or more), leftmost first, at one place the longest. */
export function sampledSearch(forms: readonly string[]): Search {
  // Every piece of every form: its hash in `keys` (open addressing, at most a quarter full), the
  // pieces with that hash as a list from `heads` through `next`, each with its form and offset.
  const count = forms.reduce((n, f) => n + f.length - GRAM + 1, 0)
  let bits = 8
  while (1 << bits < count * 4) bits++
  const mask = (1 << bits) - 1
  const keys = new Int32Array(1 << bits)
  const heads = new Int32Array(1 << bits).fill(-1)
  const next = new Int32Array(count)
  const formOf = new Int32Array(count)
  const offsetOf = new Int32Array(count)
  const slotOf = (h: number) => {
    let slot = Math.imul(h, 0x9e3779b1) >>> (32 - bits)
    while (heads[slot] !== -1 && keys[slot] !== h) slot = (slot + 1) & mask
    return slot
  }
  let entry = 0
  forms.forEach((form, f) => {
    for (let o = 0; o + GRAM <= form.length; o++, entry++) {
      const h = hashAt(form, o)
      const slot = slotOf(h)
      keys[slot] = h
      formOf[entry] = f
      offsetOf[entry] = o
      next[entry] = heads[slot]!
      heads[slot] = entry
    }
  })
  /**
   * The leftmost match starting at `from` or later, and its length. A match starting at s holds the
   * piece at the first looked-up place at or after s, and any that starts before it would have been
   * found at an earlier place: so the first place with a match has the leftmost.
   */
  const find = (text: string, from: number): [number, number] | undefined => {
    for (let at = from, last = text.length - GRAM; at <= last; at += GRAM) {
      const slot = slotOf(hashAt(text, at))
      if (heads[slot] === -1) continue
      let start = -1
      let length = 0
      for (let e = heads[slot]!; e !== -1; e = next[e]!) {
        const form = forms[formOf[e]!]!
        const s = at - offsetOf[e]!
        if (s < from || (start >= 0 && (s > start || (s === start && form.length <= length)))) continue
        if (text.startsWith(form, s)) [start, length] = [s, form.length]
      }
      if (start >= 0) return [start, length]
    }
    return undefined
  }
  const search: Search = {
    lastIndex: 0,
    exec(text) {
      const found = forms.length ? find(text, search.lastIndex) : undefined
      if (!found) {
        search.lastIndex = 0
        return null
      }
      search.lastIndex = found[0] + found[1]
      return Object.assign([text.slice(found[0], search.lastIndex)] as [string], { index: found[0] })
    },
    test: (text) => forms.length > 0 && find(text, 0) !== undefined,
  }
  return search
}
