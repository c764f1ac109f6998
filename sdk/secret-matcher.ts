// Replacing known secret values in free text: one matcher per set of secrets (cached until the set
// changes), covering each value as written and in the encodings that leak it unchanged (URL, JSON,
// base64 at any alignment, hex). Values too short or too common to be secrets are never matched.

/** A secret the agent knows, with the name it is known by (an environment variable or config path). */
export interface SecretEntry {
  readonly name: string
  readonly value: string
}

/** Shortest value treated as a secret: shorter ones would also match ordinary words and numbers. */
export const MIN_SECRET_LENGTH = 6
/** Values of this length or more are matched anywhere; shorter ones only as a whole word. */
const ANYWHERE_LENGTH = 12
/** Encoded forms shorter than this are left out (a base64 core of a short value matches too much). */
const MIN_ENCODED_LENGTH = 10

// Placeholder and switch values people put in secret-named variables; treating them as secrets
// would erase these words from every output.
const COMMON = new Set([
  'true', 'false', 'enabled', 'disabled', 'default', 'undefined', 'null', 'none', 'localhost', 'api-key', 'apikey',
  'bearer', 'secret', 'password', 'passwd', 'token', 'changeme', 'change-me', 'example', 'placeholder', 'required',
  'optional', 'oauth', 'basic', 'unset', 'empty', 'dummy', 'test', 'testing', 'xxxxxx', 'your-api-key', 'your_api_key',
])

/** The marker a secret is replaced with in what the model reads and what is stored. */
export function secretMarker(name: string): string {
  return `[REDACTED:${name}]`
}

/** Whether `value` may be treated as a secret: long enough, not a number, a switch or a placeholder. */
export function isRedactableSecret(value: string | undefined): value is string {
  if (typeof value !== 'string') return false
  const v = value.trim()
  if (v.length < MIN_SECRET_LENGTH) return false
  if (COMMON.has(v.toLowerCase())) return false
  // Ports, counts, timestamps: a short number is not a key, and matching it would erase numbers everywhere.
  if (/^[\d.,:+-]+$/.test(v) && v.replace(/\D/g, '').length < 12) return false
  // One repeated character (`xxxxxxxx`, `********`).
  if (/^(.)\1*$/s.test(v)) return false
  return true
}

/** The parts of base64(value) that are the same wherever the value sits in a longer encoded stream. */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8')
  const out: string[] = []
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64')
    // Characters 6-bit aligned wholly inside the value's bits: not touched by what comes before or after.
    const start = Math.ceil((offset * 8) / 6)
    const end = Math.floor(((offset + bytes.length) * 8) / 6)
    const core = encoded.slice(start, end)
    if (core.length >= MIN_ENCODED_LENGTH) out.push(core)
  }
  return out
}

/** Every form of `value` that is matched: the value, and its encodings that differ from it. */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value])
  forms.add(encodeURIComponent(value))
  forms.add(JSON.stringify(value).slice(1, -1))
  if (value.length >= ANYWHERE_LENGTH) {
    // The value encoded alone (padding included), then the cores that match inside any longer stream.
    const whole = Buffer.from(value, 'utf8').toString('base64')
    forms.add(whole)
    forms.add(whole.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'))
    for (const core of base64Cores(value)) {
      forms.add(core)
      forms.add(core.replace(/\+/g, '-').replace(/\//g, '_')) // base64url
    }
    forms.add(Buffer.from(value, 'utf8').toString('hex'))
  }
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH)
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

/**
 * Redacts a stream of pieces: `push` returns what can be passed on now, holding back a tail that
 * could still grow into a secret; `flush` returns the rest at the end. Concatenated, the outputs
 * equal `redact` of the concatenated input (up to where a cut falls).
 */
export interface SecretStream {
  push(piece: string): string
  flush(): string
}

const PASS_THROUGH: SecretStream = { push: (piece) => piece, flush: () => '' }

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function buildMatcher(entries: readonly SecretEntry[], marker: (name: string) => string): SecretMatcher {
  const byForm = new Map<string, string>()
  const values = new Set<string>()
  for (const { name, value } of entries) {
    if (!isRedactableSecret(value) || values.has(value)) continue
    values.add(value)
    for (const form of secretForms(value)) if (!byForm.has(form)) byForm.set(form, name)
  }
  if (byForm.size === 0) return { size: 0, redact: (text) => text, test: () => false, stream: () => PASS_THROUGH }
  // Longest first, so a value wins over any shorter value it contains. Short forms only as whole
  // words: `abc123` must not be cut out of `xabc1234`.
  const forms = [...byForm.keys()].sort((a, b) => b.length - a.length)
  const source = forms.map((f) => (f.length >= ANYWHERE_LENGTH ? escape(f) : `(?<![A-Za-z0-9])${escape(f)}(?![A-Za-z0-9])`)).join('|')
  const pattern = new RegExp(source, 'g')
  const probe = new RegExp(source)
  const redact = (text: string) => (typeof text === 'string' && text.length >= MIN_SECRET_LENGTH ? text.replace(pattern, (m) => marker(byForm.get(m) ?? '')) : text)
  // Tails that may still grow into a match: every proper prefix of every form, and short forms
  // whole (a word match needs the next character to be decided). Built on the first stream.
  let prefixes: Set<string> | undefined
  // Characters that occur in some form: a tail reaching past one that occurs in none cannot be a prefix.
  let alphabet: Set<string> | undefined
  const longest = forms[0]!.length
  const held = (text: string) => {
    prefixes ??= new Set(forms.flatMap((f) => Array.from({ length: f.length < ANYWHERE_LENGTH ? f.length : f.length - 1 }, (_, i) => f.slice(0, i + 1))))
    alphabet ??= new Set(forms.join(''))
    let reach = 0
    while (reach < longest && reach < text.length && alphabet.has(text[text.length - 1 - reach]!)) reach++
    for (let k = reach; k > 0; k--) if (prefixes.has(text.slice(text.length - k))) return k
    return 0
  }
  return {
    size: values.size,
    redact,
    test: (text) => typeof text === 'string' && probe.test(text),
    stream: () => {
      // `before` is the last character passed on: the context a word match looks behind at.
      let pending = ''
      let before = ''
      const take = (final: boolean) => {
        const text = before + pending
        const from = before.length
        let cut = Math.max(from, final ? text.length : text.length - held(text))
        let out = ''
        let last = from
        pattern.lastIndex = 0
        for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
          const start = m.index
          const end = start + m[0].length
          if (start < from) continue // overlaps what was passed on already: the whole text would not match it either
          if (start >= cut) break
          // A match across the cut is complete already: it goes out whole, as its marker.
          if (end > cut) cut = end
          out += text.slice(last, start) + marker(byForm.get(m[0]) ?? '')
          last = end
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
    },
  }
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
