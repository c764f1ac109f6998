// Replacing known secret values in free text: one matcher per set of secrets (cached until the set
// changes), covering each value as written and in the encodings that leak it unchanged (URL, JSON,
// base64 at any alignment, hex in either case). The base64 and hex forms are matched also when
// wrapped: a line break (`\n` or `\r\n`, with the blanks some tools put around it) anywhere inside
// them, as `base64` (76 columns) and `xxd -p` (60) print them. Values too short or too common to be
// secrets are never matched (redactable.ts). A multi-line value (a key file) is matched whole and
// line by line.
// The forms are listed by forms.ts, wrapped ones found by wrapped.ts, long ones (too long for a
// pattern) by long.ts, the lines of multi-line values by sampled.ts, streams redacted by stream.ts.

import { formSource, formsOf, patterns, type FormKind } from './forms.ts'
import { MIN_SECRET_LENGTH, isRedactableSecret } from './redactable.ts'
import { LONG_FORM, literalSearch, longWrappedSearch, type Search } from './long.ts'
import { SAMPLED_LEAST, sampledSearch } from './sampled.ts'
import { PASS_THROUGH, secretStreams, type SecretStream } from './stream.ts'
import { wrappedSearch, type Found, type Wrapped } from './wrapped.ts'

export type { SecretStream } from './stream.ts'
export { MIN_SECRET_LENGTH, isRedactableSecret } from './redactable.ts'

/** A secret the agent knows, with the name it is known by (an environment variable or config path). */
export interface SecretEntry {
  readonly name: string
  readonly value: string
}

/** The marker a secret is replaced with in what the model reads and what is stored. */
export function secretMarker(name: string): string {
  return `[REDACTED:${name}]`
}

/** Every form of `value` that is matched: the value, and its encodings that differ from it. */
export function secretForms(value: string): string[] {
  const { plain, lines, encoded, hex } = formsOf(value)
  return [...new Set([...plain, ...lines, ...encoded, ...(hex === undefined ? [] : [hex])])].filter((f) => f.length >= MIN_SECRET_LENGTH)
}

export interface SecretMatcher {
  /** How many distinct secret values it matches. */
  readonly size: number
  /** `text` with every form of every secret replaced by its marker. */
  redact(text: string): string
  /** Whether `text` holds any form of any secret. */
  test(text: string): boolean
  /** A redactor for text that arrives in pieces (streamed deltas): see SecretStream. */
  stream(): SecretStream
}

function buildMatcher(entries: readonly SecretEntry[], marker: (name: string) => string): SecretMatcher {
  const byForm = new Map<string, string>()
  const kinds = new Map<string, FormKind>()
  const values = new Set<string>()
  const lineForms = new Set<string>()
  const add = (form: string, name: string, kind: FormKind) => {
    if (form.length < MIN_SECRET_LENGTH) return
    if (!byForm.has(form)) byForm.set(form, name)
    // A form that is also an encoding is matched as one (a superset of the plain match).
    const was = kinds.get(form)
    if (!was || was === 'plain' || kind === 'hex') kinds.set(form, kind)
  }
  for (const { name, value } of entries) {
    if (!isRedactableSecret(value) || values.has(value)) continue
    values.add(value)
    const { plain, lines, encoded, hex } = formsOf(value)
    for (const form of plain) add(form, name, 'plain')
    for (const form of lines) {
      add(form, name, 'plain')
      lineForms.add(form)
    }
    for (const form of encoded) add(form, name, 'base64')
    if (hex !== undefined) add(hex, name, 'hex')
  }
  if (byForm.size === 0) return { size: 0, redact: (text) => text, test: () => false, stream: () => PASS_THROUGH }
  // Longest first, so a value wins over any shorter value it contains. Short forms only as whole
  // words: `abc123` must not be cut out of `xabc1234`.
  const forms = [...byForm.keys()].sort((a, b) => b.length - a.length)
  // Every form as written (one pattern, unless too long for one), the hex forms apart with the `i`
  // flag (in with the others they slow the search down several times over, digits being common);
  // probes: the same, for `test`.
  // Forms of LONG_FORM or more (the hex form of a secret of 512 bytes and up) are searched as
  // literals (long.ts): in a pattern, a long secret's would make it too large to build.
  // The lines of multi-line secrets (as written, long enough) are searched by pieces (sampled.ts):
  // in a pattern, a key's 50 lines made the whole search several times slower.
  const short = forms.filter((f) => f.length < LONG_FORM)
  const long = forms.filter((f) => f.length >= LONG_FORM)
  const isSampled = (f: string) => lineForms.has(f) && kinds.get(f) === 'plain' && f.length >= SAMPLED_LEAST
  const patternsOf = [
    ...patterns(short.filter((f) => kinds.get(f) !== 'hex' && !isSampled(f)).map((f) => formSource(f, kinds.get(f)!)), 'g'),
    ...patterns(short.filter((f) => kinds.get(f) === 'hex'), 'gi'),
  ]
  const sampled = short.filter(isSampled)
  const literals: Search[] = [...long.map((f) => literalSearch(f, kinds.get(f) === 'hex')), ...(sampled.length ? [sampledSearch(sampled)] : [])]
  const exact: Search[] = [...patternsOf, ...literals]
  const probes: Search[] = [...patternsOf.map((p) => new RegExp(p.source, p.flags.replace('g', ''))), ...literals]
  // Wrapped forms: the line breaks that may sit inside one (none, mostly), and the forms across them.
  const wrappedShort = wrappedSearch(short, kinds, byForm)
  const wrappedLong = longWrappedSearch(long.filter((f) => kinds.get(f) !== 'plain'), kinds, byForm)
  const pointsIn = wrappedShort.pointsIn
  const wrappedIn = (text: string, points: readonly number[]): Wrapped[] => {
    const found = points.length ? wrappedShort.wrappedIn(text, points) : []
    const longer = wrappedLong(text)
    return longer.length ? [...found, ...longer].sort((a, b) => a.start - b.start || b.length - a.length) : found
  }
  // An upper-case hex form is found by its form in lower case.
  const nameOf = (match: string) => byForm.get(match) ?? byForm.get(match.toLowerCase()) ?? ''
  /**
   * The matches in `text`, in order, as one pattern of every form would find them (leftmost first;
   * at one place the longest form): the exact patterns' matches, merged with the `wrapped` ones.
   */
  const scan = (text: string, wrapped: readonly Wrapped[]): Found[] => {
    const found: Found[] = []
    let pos = 0
    let next = 0
    const heads = exact.map((p) => {
      p.lastIndex = 0
      return p.exec(text)
    })
    for (;;) {
      let best = -1
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i]
        const b = best < 0 ? undefined : heads[best]!
        if (h && (!b || h.index < b.index || (h.index === b.index && h[0].length > b[0].length))) best = i
      }
      const h = best < 0 ? undefined : heads[best]!
      while (next < wrapped.length && wrapped[next]!.start < pos) next++
      const w = wrapped[next]
      let f: Found
      if (w && (!h || w.start < h.index || (w.start === h.index && w.length > h[0].length))) f = w
      else if (h) f = { start: h.index, end: h.index + h[0].length, name: nameOf(h[0]) }
      else break
      found.push(f)
      pos = f.end
      for (let i = 0; i < heads.length; i++) {
        if (heads[i] && heads[i]!.index < pos) {
          exact[i]!.lastIndex = pos
          heads[i] = exact[i]!.exec(text)
        }
      }
    }
    return found
  }
  const matches = (text: string) => scan(text, wrappedIn(text, pointsIn(text)))
  const redact = (text: string) => {
    if (typeof text !== 'string' || text.length < MIN_SECRET_LENGTH) return text
    let out = ''
    let last = 0
    for (const f of matches(text)) {
      out += text.slice(last, f.start) + marker(f.name)
      last = f.end
    }
    return last === 0 ? text : out + text.slice(last)
  }
  const test = (text: string) => typeof text === 'string' && (probes.some((p) => p.test(text)) || wrappedIn(text, pointsIn(text)).length > 0)
  return { size: values.size, redact, test, stream: secretStreams(forms, kinds, matches, marker) }
}

// A few recent sets: the runtime, the store and the logger ask with the same set over and over.
const cache = new Map<string, SecretMatcher>()
const CACHE_SIZE = 8

// A frozen list of frozen entries (what Settings.secretEntries hands out, one per set) finds its
// matcher without the key being built: the runtime asks for every model request and message, the
// store for every row, the logger for every line.
const byList = new WeakMap<readonly SecretEntry[], Map<(name: string) => string, SecretMatcher>>()

const frozenList = (entries: Iterable<SecretEntry>): readonly SecretEntry[] | undefined =>
  Array.isArray(entries) && Object.isFrozen(entries) && entries.every((e) => Object.isFrozen(e)) ? (entries as readonly SecretEntry[]) : undefined

/** The matcher for this set of secrets, built once and cached until the set (or marker) changes. */
export function secretMatcher(entries: Iterable<SecretEntry>, marker: (name: string) => string = secretMarker): SecretMatcher {
  // Only lists found frozen are ever kept, and frozen stays frozen: a kept list needs no new check.
  const known = byList.get(entries as readonly SecretEntry[])?.get(marker)
  if (known) return known
  const frozen = frozenList(entries)
  const matcher = matcherFor([...entries], marker)
  if (frozen) {
    let markers = byList.get(frozen)
    if (!markers) byList.set(frozen, (markers = new Map()))
    markers.set(marker, matcher)
  }
  return matcher
}

function matcherFor(list: SecretEntry[], marker: (name: string) => string): SecretMatcher {
  const key = `${marker('\0')}\u0001${list.map((e) => `${e.name}\0${e.value}`).join('\u0001')}`
  let matcher = cache.get(key)
  if (matcher) {
    // Refresh its place: the oldest set goes first.
    cache.delete(key)
    cache.set(key, matcher)
    return matcher
  }
  matcher = buildMatcher(list, marker)
  cache.set(key, matcher)
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!)
  return matcher
}

/**
 * `value` with `redact` applied to every string inside it (object keys excepted). Returns the same
 * object where nothing changed, a copy where something did; never mutates.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string, depth = 0): T {
  if (typeof value === 'string') return redact(value) as T
  if (depth > 64 || value === null || typeof value !== 'object') return value
  // Nothing is allocated until something changes: every stored message and model request comes here.
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const next = redactDeep(item, redact, depth + 1)
      if (next !== item) (out ??= [...value])[i] = next
    }
    return (out ?? value) as T
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue
    const item = record[key]
    const next = redactDeep(item, redact, depth + 1)
    if (next !== item) (copy ??= { ...record })[key] = next
  }
  return (copy ?? value) as T
}
