// One Unicode normaliser for every guard that matches text written by someone else (the skills
// scanner, the smart-approval judge's sanitiser): what looks like ASCII to a reader becomes ASCII
// before any pattern runs, so fullwidth, Cyrillic, zero-width or spaced-out words cannot slip past.

import { createRequire } from 'node:module'

type Remove = (text: string) => string
let removeFn: Remove | undefined
// confusables loads on first use only (the SDK is imported by every `agent` start).
const removeConfusables = (text: string): string => (removeFn ??= (createRequire(import.meta.url)('confusables') as { remove: Remove }).remove)(text)

/**
 * Characters that render as nothing or reorder what is shown: zero-width and joiners, bidi controls
 * (Trojan Source), soft hyphen, word joiners and invisible operators, fillers, variation selectors.
 */
const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0100}-\u{E01EF}]/gu
/** Unicode tag characters: invisible, yet each one stands for an ASCII character ("ASCII smuggling"). */
const TAGS = /[\u{E0000}-\u{E007F}]/gu
const NON_ASCII_RUN = /[^\x00-\x7F]+/g
// confusables maps these capital-I look-alikes (Greek Iota, Cyrillic I, palochka …) to `l`.
const CAPITAL_I = /[\u0196\u01C0\u0399\u0406\u04C0]/g

/** True when the text holds invisible, direction-changing or tag characters (a BOM at the start aside). */
export function hasHiddenCharacters(text: string): boolean {
  const body = text.replace(/^\uFEFF/, '')
  INVISIBLE.lastIndex = 0
  TAGS.lastIndex = 0
  const found = INVISIBLE.test(body) || TAGS.test(body)
  INVISIBLE.lastIndex = 0
  TAGS.lastIndex = 0
  return found
}

/** The ASCII text smuggled in tag characters ('' when there is none). */
export function tagText(text: string): string {
  return [...text.matchAll(TAGS)].map((m) => String.fromCharCode(m[0].codePointAt(0)! - 0xe0000)).join('').replace(/[^\x20-\x7E]/g, '')
}

/**
 * What a human reads, as ASCII where it looks like ASCII: tag characters decoded into the text they
 * carry, invisible and bidi controls removed, NFKC (fullwidth, ligatures, compatibility forms), then
 * confusables (Cyrillic, Greek, mathematical letters …) mapped to their ASCII look-alike. ASCII input
 * comes back unchanged; characters with no ASCII look-alike (CJK, most scripts) are kept.
 */
export function normaliseText(text: string): string {
  const revealed = text.replace(TAGS, (ch) => {
    const code = ch.codePointAt(0)! - 0xe0000
    return code >= 0x20 && code <= 0x7e ? String.fromCharCode(code) : ''
  })
  // Only non-ASCII runs go to confusables: its table maps ASCII `|` to `l`, which would break commands.
  return revealed.replace(INVISIBLE, '').normalize('NFKC').replace(CAPITAL_I, 'I').replace(NON_ASCII_RUN, (run) => removeConfusables(run))
}

/**
 * Joins letters spelled out one at a time ("A P P R O V E", "i.g.n.o.r.e", "d-e-n-y"): three or more
 * single letters separated by spaces or light punctuation become one word; where the gaps differ
 * ("i g n o r e  a l l"), the wider gaps stay as word breaks. For matching only, never for showing.
 */
export function collapseSpacedLetters(text: string): string {
  return text.replace(/(?<![A-Za-z0-9])[A-Za-z](?:[\s._*\-|/\\,:+~'"`]{1,3}[A-Za-z](?![A-Za-z0-9])){2,}/g, (run) => {
    const gaps = run.match(/[^A-Za-z]+/g) ?? []
    // A loop, not Math.min(...gaps): a run can hold more gaps than the stack has frames.
    let narrow = Infinity
    for (const gap of gaps) narrow = Math.min(narrow, gap.length)
    return run.replace(/[^A-Za-z]+/g, (gap) => (gap.length > narrow ? ' ' : ''))
  })
}

/** normaliseText, then collapseSpacedLetters: the form patterns are matched against. */
export function normaliseForMatching(text: string): string {
  return collapseSpacedLetters(normaliseText(text))
}
