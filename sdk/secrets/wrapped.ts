// Finding the base64 and hex forms of secrets that are wrapped across line breaks, for the matcher
// (index.ts), which merges what is found here with its matches of the forms as written.

import { BREAK_BLANKS, isBlank, stepEncoded, symbol, unwrap } from './breaks.ts'
import { escape, patterns, type FormKind } from './forms.ts'

// Wrapped encodings. A tool may break an encoded form across lines anywhere (`base64` wraps at 76
// columns, `xxd -p` at 60, PEM at 64): a line break is up to BREAK_BLANKS blanks, `\r?\n`, up to
// BREAK_BLANKS blanks (indentation). A pattern allowing one between every two characters of every
// form would say it exactly, but it is slow: the engine can no longer skip ahead, and past 20 KB of
// source it does not optimise a pattern at all. So every text is searched for the forms as written,
// which finds everything unless a line break sits inside an encoded form; a quick look at each line
// break (wrapPoints) finds the few that may, and only around those are the encoded forms searched
// for with such breaks taken out. Together that finds what the one pattern would, in its order:
// leftmost first, at one place the longest form.

/** Most line breaks looked at one by one for wrapped forms; past that, the whole text is searched. */
const MOST_POINTS = 8
/**
 * Length of the pieces of forms compared across a line break (5 × 6 bits make a small integer).
 * Encoded forms are 3 pieces long or more: they are of values of ANYWHERE_LENGTH (12) or more,
 * whose base64 cores are 15 characters or more.
 */
const GRAM = 5

/**
 * The pieces of encoded forms (in either case) that a line break inside one has across it: every
 * GRAM characters, as numbers of 6 bits a character, in an open-addressing hash table; and every 3
 * characters, as bits of a table (a quicker first look).
 */
interface Pieces {
  readonly table: Int32Array
  readonly shift: number
  readonly triples: Uint8Array
}

const EMPTY = -1

function piecesOf(forms: readonly string[]): Pieces {
  const codes: number[] = []
  const triples = new Uint8Array(1 << 15)
  for (const form of forms) {
    let code = 0
    for (let i = 0; i < form.length; i++) {
      code = ((code << 6) | symbol(form.charCodeAt(i))) & 0x3fffffff
      if (i >= 2) triples[(code & 0x3ffff) >>> 3]! |= 1 << (code & 7)
      if (i >= GRAM - 1) codes.push(code)
    }
  }
  // At most a quarter full: a piece not in it is told after a probe or two.
  let size = 8
  while (1 << size < codes.length * 4) size++
  const table = new Int32Array(1 << size).fill(EMPTY)
  const shift = 32 - size
  for (const code of codes) {
    let h = Math.imul(code, 0x9e3779b1) >>> shift
    while (table[h] !== EMPTY && table[h] !== code) h = (h + 1) & (table.length - 1)
    table[h] = code
  }
  return { table, shift, triples }
}

/** Whether `code` is a piece of some form. */
function hasPiece(code: number, table: Int32Array, shift: number): boolean {
  let h = Math.imul(code, 0x9e3779b1) >>> shift
  while (table[h] !== EMPTY && table[h] !== code) h = (h + 1) & (table.length - 1)
  return table[h] === code
}

/** Gathered characters around a line break (see nextToPiece): the left ones end at MID, the right ones start there. */
const MID = 2 * GRAM - 1
const AROUND = new Int32Array(2 * MID)

/** Whether the piece of GRAM characters of AROUND at `at` is within [first, end) and a piece of some form. */
function pieceAt(at: number, first: number, end: number, table: Int32Array, shift: number): boolean {
  if (at < first || at + GRAM > end) return false
  let code = 0
  for (let k = at; k < at + GRAM; k++) code = (code << 6) | AROUND[k]!
  return hasPiece(code, table, shift)
}

/**
 * Whether the piece across the line break between `l` and `r` that starts `a` characters left of
 * it (a piece of some form) has another piece next to it, on one side or the other, as it has
 * inside a form (a form is 3 pieces long or more). Characters are gathered across further breaks.
 */
function nextToPiece(text: string, l: number, r: number, a: number, table: Int32Array, shift: number): boolean {
  let left = 0
  for (let i = l; i >= 0 && left < MID; i = stepEncoded(text, i, -1)) AROUND[MID - 1 - left++] = symbol(text.charCodeAt(i))
  let right = 0
  for (let i = r; i >= 0 && right < MID; i = stepEncoded(text, i, 1)) AROUND[MID + right++] = symbol(text.charCodeAt(i))
  const at = MID - a
  return pieceAt(at - GRAM, MID - left, MID + right, table, shift) || pieceAt(at + GRAM, MID - left, MID + right, table, shift)
}

/**
 * The line breaks in `text` that may sit inside an encoded form, as the places of the characters
 * either side (left, right, left, right…): those with a piece of some form across them and another
 * next to that. Every line break inside a form is one (forms are 3 pieces long or more, and the
 * characters either side are gathered across further breaks); few others are. Stops past `most`.
 */
function wrapPoints(text: string, pieces: Pieces, most: number): number[] {
  const points: number[] = []
  const { table, shift, triples } = pieces
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
    // The characters either side of the whole break (blanks, `\r`, `\n`, blanks); mostly, the
    // ones next to the `\n`.
    let l = nl - 1
    let c = text.charCodeAt(l)
    let l1 = symbol(c)
    if (!l1) {
      if (c === 13) c = text.charCodeAt(--l)
      for (const end = l; (c === 32 || c === 9) && end - l < BREAK_BLANKS; ) c = text.charCodeAt(--l)
      if (!(l1 = symbol(c))) continue
    }
    let r = nl + 1
    c = text.charCodeAt(r)
    let r1 = symbol(c)
    if (!r1) {
      while ((c === 32 || c === 9) && r - nl <= BREAK_BLANKS) c = text.charCodeAt(++r)
      if (!(r1 = symbol(c))) continue
    }
    // Most are settled by the next character each side: no 3 characters of a form across.
    const l2 = symbol(text.charCodeAt(l - 1))
    const r2 = symbol(text.charCodeAt(r + 1))
    if (l2 && r2) {
      const t1 = (l2 << 12) | (l1 << 6) | r1
      const t2 = (l1 << 12) | (r1 << 6) | r2
      if (!(triples[t1 >>> 3]! & (1 << (t1 & 7))) && !(triples[t2 >>> 3]! & (1 << (t2 & 7)))) continue
    }
    // Up to GRAM - 1 characters a side (nearest first, across further breaks), 6 bits each; then
    // every piece of GRAM characters across the break, and, for one of some form, the pieces next.
    let left = l1
    let lefts = 1
    for (let i = l; lefts < GRAM - 1; ) {
      const c = text.charCodeAt(i - 1)
      if (symbol(c)) i--
      else if (c === 10 || c === 13 || isBlank(c)) i = stepEncoded(text, i, -1)
      else break
      if (i < 0) break
      left |= symbol(text.charCodeAt(i)) << (6 * lefts++)
    }
    let right = r1
    let rights = 1
    for (let i = r; rights < GRAM - 1; ) {
      const c = text.charCodeAt(i + 1)
      if (symbol(c)) i++
      else if (c === 10 || c === 13 || isBlank(c)) i = stepEncoded(text, i, 1)
      else break
      if (i < 0) break
      right = (right << 6) | symbol(text.charCodeAt(i))
      rights++
    }
    for (let a = Math.min(lefts, GRAM - 1); a >= 1 && GRAM - a <= rights; a--) {
      // The nearest `a` characters on the left, then the first GRAM - a on the right.
      const code = ((left & ((1 << (6 * a)) - 1)) << (6 * (GRAM - a))) | (right >>> (6 * (rights - (GRAM - a))))
      if (hasPiece(code, table, shift) && nextToPiece(text, l, r, a, table, shift)) {
        points.push(l, r)
        if (points.length > 2 * most) return points
        break
      }
    }
  }
  return points
}

/** A match: where it starts and ends in the text, and the name of the secret. */
export interface Found {
  start: number
  end: number
  name: string
}

/** A match of an encoded form with line breaks: also the form's length and place in the order of alternatives. */
export interface Wrapped extends Found {
  length: number
  rank: number
}

export interface WrappedSearch {
  /** The line breaks in `text` that may sit inside an encoded form (see wrapPoints); none, mostly. */
  pointsIn(text: string): number[]
  /** The encoded forms across those `points`, in order of place (see wrappedIn below). */
  wrappedIn(text: string, points: readonly number[]): Wrapped[]
}

/** The search for wrapped forms among `forms` (longest first; `kinds` says which are encoded, `byForm` which secret each is of). */
export function wrappedSearch(forms: readonly string[], kinds: ReadonlyMap<string, FormKind>, byForm: ReadonlyMap<string, string>): WrappedSearch {
  const encodedForms = forms.filter((f) => kinds.get(f) !== 'plain')
  // For wrapped forms, built when first needed: the pieces of forms a line break inside one has
  // across it; the encoded forms as written (hex in either case), searched for in the text with
  // the line breaks inside runs of encoded characters taken out.
  let pieces: Pieces | undefined
  let searches: RegExp[] | undefined
  /** The line breaks that may sit inside an encoded form (see wrapPoints); none, mostly. */
  const pointsIn = (text: string): number[] => (encodedForms.length && text.includes('\n') ? wrapPoints(text, (pieces ??= piecesOf(encodedForms)), MOST_POINTS) : [])
  /** Where each form is in the order of alternatives (longest first): at one place, the first wins. */
  const rank = new Map(forms.map((f, i) => [f, i]))
  const reach = encodedForms.length ? encodedForms[0]!.length - 1 : 0
  /**
   * Adds to `found` (by where they start in the text) the encoded forms in `bare` that start before
   * `end` (and reach past `split`, if given); `from` says where each character of `bare` is.
   */
  const searchIn = (bare: string, from: (at: number) => number, found: Map<number, Wrapped>, end: number, split?: number) => {
    searches ??= [...patterns(encodedForms.filter((f) => kinds.get(f) === 'base64').map(escape), 'g'), ...patterns(encodedForms.filter((f) => kinds.get(f) === 'hex'), 'gi')]
    for (const search of searches) {
      search.lastIndex = 0
      for (let m = search.exec(bare); m && m.index < end; m = search.exec(bare)) {
        const last = m.index + m[0].length
        if (split === undefined || last > split) {
          const form = search.ignoreCase ? m[0].toLowerCase() : m[0]
          const start = from(m.index)
          const known = found.get(start)
          if (!known || rank.get(form)! < known.rank) found.set(start, { start, end: from(last - 1) + 1, length: form.length, name: byForm.get(form) ?? '', rank: rank.get(form)! })
        }
        search.lastIndex = m.index + 1 // every place, overlapping ones too
      }
    }
  }
  /**
   * The encoded forms a line break sits inside (and perhaps others), in order of place, the first
   * form in order at each. Around each of a few `points`, the encoded characters either side (across
   * line breaks, as far as the longest form reaches) are searched for forms across that break;
   * where there are many, the whole text with its line breaks inside encoded runs taken out. Only
   * line breaks a wrapped form may have are taken out, so whatever is found there is a match.
   */
  const wrappedIn = (text: string, points: readonly number[]): Wrapped[] => {
    const found = new Map<number, Wrapped>()
    if (points.length > 2 * MOST_POINTS) {
      const { bare, from } = unwrap(text)
      searchIn(bare, from, found, bare.length)
    } else {
      const from: number[] = []
      for (let p = 0; p < points.length; p += 2) {
        from.length = 0
        for (let i = points[p]!; i >= 0 && from.length < reach; i = stepEncoded(text, i, -1)) from.push(i)
        from.reverse()
        const split = from.length
        for (let i = points[p + 1]!; i >= 0 && from.length < split + reach; i = stepEncoded(text, i, 1)) from.push(i)
        searchIn(from.map((i) => text[i]).join(''), (at) => from[at]!, found, split, split)
      }
    }
    return [...found.values()].sort((a, b) => a.start - b.start)
  }
  return { pointsIn, wrappedIn }
}
