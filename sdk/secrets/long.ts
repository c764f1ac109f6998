// Forms too long for a regular expression. A secret of about 20 KB has a hex form of 40 KB, and a
// pattern that long makes `new RegExp` throw ("Regular expression too large"), which would break
// every redaction at once. So forms of LONG_FORM characters or more are searched as literals:
// `indexOf`, or for hex (either case) a pattern of its first HEAD characters with the rest
// compared. The matcher (index.ts) scans with them beside its patterns; wrapped ones are searched
// for in the stretches of encoded text that are long enough to hold one, with their line breaks
// taken out; a streamed tail that may grow into one is found here too (stream.ts).

import { BREAK_BLANKS, breakStart, isBlank, symbol, unwrap } from './breaks.ts'
import type { FormKind } from './forms.ts'
import type { Wrapped } from './wrapped.ts'

/** Forms this long or longer are searched as literals, never put into a pattern. */
export const LONG_FORM = 1024
/** The first characters of a long form looked for before the rest of it is compared. */
const HEAD = 32

/** What the matcher's scan uses of a search (a RegExp has it too): where to go on from, a match, a yes or no. */
export interface Search {
  lastIndex: number
  exec(text: string): { index: number; 0: string } | null
  test(text: string): boolean
}

/** A search for `form` as written; with `foldCase` (hex, kept in lower case), in either case. */
export function literalSearch(form: string, foldCase: boolean): Search {
  // Hex characters need no escaping in a pattern.
  const head = foldCase ? new RegExp(form.slice(0, HEAD), 'gi') : undefined
  const find = (text: string, from: number): number => {
    for (let at = from; at + form.length <= text.length; ) {
      let i: number
      if (head) {
        head.lastIndex = at
        i = head.exec(text)?.index ?? -1
      } else i = text.indexOf(form, at)
      if (i < 0 || i + form.length > text.length) return -1
      if (!head || text.slice(i, i + form.length).toLowerCase() === form) return i
      at = i + 1
    }
    return -1
  }
  const search: Search = {
    lastIndex: 0,
    exec(text) {
      const i = find(text, search.lastIndex)
      if (i < 0) {
        search.lastIndex = 0
        return null
      }
      search.lastIndex = i + form.length
      return Object.assign([text.slice(i, search.lastIndex)] as [string], { index: i })
    },
    test: (text) => find(text, 0) >= 0,
  }
  return search
}

/**
 * The stretches [start, end) of `text` made of encoded characters and line breaks between them only,
 * with a line break in them and at least `least` encoded characters: the only places a wrapped long
 * form can be. Found from each line break by a look at the encoded characters either side, so
 * ordinary text (words, paths, blanks inside lines) costs a few characters a line.
 */
function encodedStretches(text: string, least: number): Array<[number, number]> {
  const out: Array<[number, number]> = []
  let start = -1
  let end = -1
  let count = 0
  /** Where the line a stretch starts on begins: its encoded characters left of the first break are counted only when they could matter. */
  let lineStart = 0
  let counted = true
  const close = () => {
    if (!counted && count + (start + 1 - lineStart) >= least) {
      const first = start + 1
      while (start > lineStart && symbol(text.charCodeAt(start - 1))) start--
      count += first - start
    }
    if (count >= least) out.push([start, end])
  }
  for (let nl = text.indexOf('\n'), line = 0; nl >= 0; line = nl + 1, nl = text.indexOf('\n', nl + 1)) {
    let r = nl + 1
    while (r - nl - 1 < BREAK_BLANKS && isBlank(text.charCodeAt(r))) r++
    if (!symbol(text.charCodeAt(r))) continue
    const a = breakStart(text, r, false)
    if (a <= 0 || !symbol(text.charCodeAt(a - 1))) continue
    let e = r
    while (symbol(text.charCodeAt(e))) e++
    if (a === end) count += e - r // the line before was encoded characters only: the stretch goes on
    else {
      if (end >= 0) close()
      start = a - 1
      lineStart = line
      counted = false
      count = e - r
    }
    end = e
    nl = Math.max(nl, e - 1)
  }
  if (end >= 0) close()
  return out
}

/**
 * The long encoded `forms` in `text` with line breaks inside (as `base64` and `xxd -p` print them),
 * sorted by where they start: searched for in the stretches where one can be, with their line
 * breaks taken out. Those without a break are the literal searches' to find.
 */
export function longWrappedSearch(forms: readonly string[], kinds: ReadonlyMap<string, FormKind>, byForm: ReadonlyMap<string, string>) {
  const searches = forms.map((form) => ({ form, search: literalSearch(form, kinds.get(form) === 'hex') }))
  const shortest = Math.min(...forms.map((f) => f.length))
  return (text: string): Wrapped[] => {
    if (!forms.length || text.length < shortest || !text.includes('\n')) return []
    const found: Wrapped[] = []
    for (const [offset, stop] of encodedStretches(text, shortest)) {
      const { bare, from } = unwrap(text.slice(offset, stop))
      for (const { form, search } of searches) {
        search.lastIndex = 0
        for (let m = search.exec(bare); m; m = search.exec(bare)) {
          const start = offset + from(m.index)
          const end = offset + from(m.index + form.length - 1) + 1
          if (end - start > form.length) found.push({ start, end, length: form.length, name: byForm.get(form) ?? '', rank: 0 })
          search.lastIndex = m.index + 1 // overlapping places too, as the wrapped search of short forms
        }
      }
    }
    return found.sort((a, b) => a.start - b.start || b.length - a.length)
  }
}

/**
 * The longest tail of `text` (shorter than the form) that one of `forms` starts with: a streamed
 * text holds it back, as it could still grow into the form. With `foldCase` (hex), in either case.
 */
export function longTail(text: string, forms: readonly string[], foldCase: boolean): number {
  let best = 0
  for (const form of forms) {
    const reach = Math.min(text.length, form.length - 1)
    if (reach <= best) continue
    const tail = foldCase ? text.slice(text.length - reach).toLowerCase() : text.slice(text.length - reach)
    // Tails of HEAD characters or more start where the form's head is found; the first that runs
    // on as the form does is the longest.
    const head = form.slice(0, HEAD)
    let k = 0
    for (let i = tail.indexOf(head); i >= 0 && !k; i = tail.indexOf(head, i + 1)) if (form.startsWith(tail.slice(i))) k = tail.length - i
    for (let n = Math.min(HEAD - 1, tail.length); n > best && !k; n--) if (form.startsWith(tail.slice(tail.length - n))) k = n
    best = Math.max(best, k)
  }
  return best
}

/**
 * For a streamed text: how long a tail to hold back because it may still grow into one of the long
 * `forms`. Encoded ones may be cut anywhere, inside a line break too: a break still arriving at
 * the end is set aside, the others are taken out before the tail is compared.
 */
export function longStreamTail(forms: readonly string[], kinds: ReadonlyMap<string, FormKind>): (text: string) => number {
  const plain = forms.filter((f) => kinds.get(f) === 'plain')
  const base64 = forms.filter((f) => kinds.get(f) === 'base64')
  const hex = forms.filter((f) => kinds.get(f) === 'hex')
  if (!forms.length) return () => 0
  return (text) => {
    let held = plain.length ? longTail(text, plain, false) : 0
    if (!base64.length && !hex.length) return held
    const { bare, from } = unwrap(text.slice(0, breakStart(text, text.length, true)))
    const k = Math.max(longTail(bare, base64, false), longTail(bare, hex, true))
    if (k) held = Math.max(held, text.length - from(bare.length - k))
    return held
  }
}
