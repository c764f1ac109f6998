// Known-secret redaction (sdk/secrets/): each value and the encodings that leak it unchanged
// become `[REDACTED:NAME]`; values too short or too common are never treated as secrets; look-alikes
// pass through untouched.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isRedactableSecret, redactDeep, secretForms, secretMatcher } from '../../sdk/index.ts'

const KEY = 'sk-live-4f9a8b7c6d5e4f3a2b1c'
const entries = [
  { name: 'OPENAI_API_KEY', value: KEY },
  { name: 'DB_PASSWORD', value: 'hunter22' },
  { name: 'PROXY_PASSWORD', value: 'p@ss/word+1=2&3x' },
]

test('a known value is replaced wherever it appears, in every covered encoding', () => {
  const m = secretMatcher(entries)
  assert.equal(m.size, 3)
  assert.equal(m.redact(`OPENAI_API_KEY=${KEY}\n`), 'OPENAI_API_KEY=[REDACTED:OPENAI_API_KEY]\n')
  assert.equal(m.redact(`x${KEY}y`), 'x[REDACTED:OPENAI_API_KEY]y') // long values: anywhere
  assert.equal(m.redact(`curl 'https://h/?k=${encodeURIComponent('p@ss/word+1=2&3x')}'`), "curl 'https://h/?k=[REDACTED:PROXY_PASSWORD]'")
  // base64 of the value alone, and inside a longer base64 stream at each of the three alignments.
  for (const prefix of ['', 'a', 'ab', 'abc', 'OPENAI_API_KEY=']) {
    const encoded = Buffer.from(`${prefix}${KEY}\nmore text after`).toString('base64')
    const out = m.redact(encoded)
    assert.match(out, /\[REDACTED:OPENAI_API_KEY\]/, `prefix ${JSON.stringify(prefix)}: ${out}`)
    assert.ok(!Buffer.from(out.replace(/\[REDACTED:[A-Z_]+\]/g, ''), 'base64').toString().includes(KEY))
  }
  assert.equal(m.redact(Buffer.from(KEY).toString('hex')), '[REDACTED:OPENAI_API_KEY]')
  assert.equal(m.redact(JSON.stringify({ k: KEY })), '{"k":"[REDACTED:OPENAI_API_KEY]"}')
})

test('short values match only as a whole word; look-alikes pass untouched', () => {
  const m = secretMatcher(entries)
  assert.equal(m.redact('password: hunter22.'), 'password: [REDACTED:DB_PASSWORD].')
  assert.equal(m.redact('hunter223 and xhunter22'), 'hunter223 and xhunter22')
  // A value of the same length and shape that is not a known secret.
  const lookAlike = 'sk-live-4f9a8b7c6d5e4f3a2b1d'
  assert.equal(m.redact(`key ${lookAlike}`), `key ${lookAlike}`)
  assert.equal(m.redact('OPENAI_BASE_URL=http://127.0.0.1:8080/v1'), 'OPENAI_BASE_URL=http://127.0.0.1:8080/v1')
  assert.equal(m.test(`a ${KEY}`), true)
  assert.equal(m.test('nothing here'), false)
})

test('values too short or too common are not secrets', () => {
  for (const v of ['', 'abc', 'abcde', 'true', 'FALSE', 'enabled', 'changeme', '8642', '127.0.0.1', '2026-11-25', 'xxxxxxxx', '********', undefined]) {
    assert.equal(isRedactableSecret(v), false, String(v))
  }
  for (const v of ['abc123', 'hunter22', KEY, '123456789012345']) assert.equal(isRedactableSecret(v), true, v)
  const m = secretMatcher([{ name: 'FLAG_TOKEN', value: 'true' }, { name: 'PORT_KEY', value: '8642' }])
  assert.equal(m.size, 0)
  assert.equal(m.redact('true 8642'), 'true 8642')
})

test('the matcher is cached per set of secrets and rebuilt when the set changes', () => {
  const a = secretMatcher(entries)
  assert.equal(secretMatcher([...entries]), a)
  const b = secretMatcher([...entries, { name: 'NEW_TOKEN', value: 'tok-0123456789abcdef' }])
  assert.notEqual(b, a)
  assert.equal(b.redact('tok-0123456789abcdef'), '[REDACTED:NEW_TOKEN]')
  assert.equal(secretMatcher(entries, () => '***').redact(KEY), '***')
})

test('a frozen set is looked up by identity; a list that can still change never is', () => {
  const frozen = Object.freeze(entries.map((e) => Object.freeze({ ...e })))
  assert.equal(secretMatcher(frozen), secretMatcher(frozen))
  assert.equal(secretMatcher(frozen).redact(`key ${KEY}`), 'key [REDACTED:OPENAI_API_KEY]')
  // A frozen array of entries that are not frozen: its entries could change under a cached matcher.
  const loose = Object.freeze([{ name: 'TOKEN_A', value: 'first-secret-value-1' }])
  assert.equal(secretMatcher(loose).redact('first-secret-value-1'), '[REDACTED:TOKEN_A]')
  loose[0]!.value = 'second-secret-value-2'
  assert.equal(secretMatcher(loose).redact('second-secret-value-2'), '[REDACTED:TOKEN_A]', 'a changed entry is matched as it is now')
  // Another marker over the same frozen set gets its own matcher.
  assert.equal(secretMatcher(frozen, () => '***').redact(KEY), '***')
  assert.equal(secretMatcher(frozen).redact(KEY), '[REDACTED:OPENAI_API_KEY]')
})

test('secretForms lists the value and its URL, JSON, base64 and hex forms', () => {
  const forms = secretForms('a"b/c+d=e&f-0123456789')
  assert.ok(forms.includes('a"b/c+d=e&f-0123456789'))
  assert.ok(forms.includes(encodeURIComponent('a"b/c+d=e&f-0123456789')))
  assert.ok(forms.includes('a\\"b/c+d=e&f-0123456789'))
  assert.ok(forms.includes(Buffer.from('a"b/c+d=e&f-0123456789').toString('hex')))
})

test('redactDeep clears every string of a message and keeps unchanged objects as they are', () => {
  const redact = secretMatcher(entries).redact
  const message = { role: 'assistant', content: [{ type: 'text', text: `the key is ${KEY}` }], toolCalls: [{ id: 'c1', name: 'terminal', arguments: JSON.stringify({ command: `echo ${KEY}` }) }] }
  const out = redactDeep(message, redact)
  assert.notEqual(out, message)
  assert.ok(!JSON.stringify(out).includes(KEY))
  assert.ok(JSON.stringify(message).includes(KEY), 'the original is not mutated')
  const clean = { role: 'user', content: 'hello' }
  assert.equal(redactDeep(clean, redact), clean)
})

test('a streamed text is redacted across any cut: the pieces passed on never hold a secret', () => {
  const m = secretMatcher(entries)
  const text = `start ${KEY} middle hunter22 and ${Buffer.from(KEY).toString('base64')} end hunter223`
  const whole = m.redact(text)
  for (let size = 1; size <= 9; size++) {
    const stream = m.stream()
    const out: string[] = []
    for (let i = 0; i < text.length; i += size) out.push(stream.push(text.slice(i, i + size)))
    out.push(stream.flush())
    assert.equal(out.join(''), whole, `pieces of ${size}`)
    for (const piece of out) assert.ok(!piece.includes('hunter22 ') && !piece.includes(KEY.slice(0, 12)), `pieces of ${size}: ${piece}`)
  }
  // Nothing is held back when no secret is known.
  const none = secretMatcher([]).stream()
  assert.equal(none.push('sk-'), 'sk-')
})

// Wrapped encodings: `base64 FILE` wraps at 76 columns, `xxd -p` at 60 hex characters a line,
// `xxd -p -u` prints upper case; a tool may indent the lines or end them with `\r\n`.

const DOTENV = `# local settings\nDB_HOST=localhost\nOPENAI_API_KEY=${KEY}\nDEBUG=false\n`
/** `text` with `sep` after every `width` characters (the last line unbroken). */
const wrapAt = (text: string, width: number, sep = '\n') => text.replace(new RegExp(`.{${width}}(?=.)`, 'gs'), (line) => line + sep)
/** What decoding `out` (markers and line breaks out) could give, at each of the 4 base64 alignments. */
const base64Decodings = (out: string) => {
  const bare = out.replace(/\[REDACTED:[A-Z_]+\]/g, '').replace(/\s/g, '')
  return [0, 1, 2, 3].map((shift) => Buffer.from(bare.slice(shift), 'base64').toString('latin1'))
}
const hexDecoding = (out: string) => Buffer.from(out.replace(/\[REDACTED:[A-Z_]+\]/g, '').replace(/\s/g, ''), 'hex').toString('latin1')
/** Whether `decoded` holds any 4 characters of KEY in a row (all a cut can leave is part of a byte each side). */
const leaks = (decoded: string) => Array.from({ length: KEY.length - 3 }, (_, i) => KEY.slice(i, i + 4)).some((piece) => decoded.includes(piece))

test('a secret in base64 wrapped at 76 columns is redacted at every alignment, and cannot be decoded back', () => {
  const m = secretMatcher(entries)
  // The secret at offsets 0, 1 and 2 of a 3-byte group (each base64 core), and at other places in the file.
  for (const prefix of ['', 'a', 'ab', 'abc', '# settings for the staging box, do not commit\n']) {
    const wrapped = wrapAt(Buffer.from(`${prefix}${DOTENV}`).toString('base64'), 76)
    assert.ok(wrapped.split('\n').length > 1)
    const out = m.redact(wrapped)
    assert.match(out, /\[REDACTED:OPENAI_API_KEY\]/, `prefix ${JSON.stringify(prefix)}`)
    for (const decoded of base64Decodings(out)) assert.ok(!leaks(decoded), `prefix ${JSON.stringify(prefix)}: ${decoded}`)
    assert.equal(m.test(wrapped), true)
  }
  // base64url, wrapped too; and the value encoded alone, one character a line.
  const url = wrapAt(Buffer.from(`xy${DOTENV}`).toString('base64url'), 64)
  assert.match(m.redact(url), /\[REDACTED:OPENAI_API_KEY\]/)
  assert.equal(m.redact(wrapAt(Buffer.from(KEY).toString('base64'), 1)), '[REDACTED:OPENAI_API_KEY]')
})

test('a secret in xxd -p hex (60 a line), in upper case, with CRLF or indented lines, is redacted', () => {
  const m = secretMatcher(entries)
  const hex = Buffer.from(DOTENV).toString('hex')
  const cases = {
    'xxd -p': wrapAt(hex, 60),
    'xxd -p -u': wrapAt(hex.toUpperCase(), 60),
    'mixed case': hex.replace(/[a-f]/g, (c, i: number) => (i % 3 ? c.toUpperCase() : c)),
    'CRLF, base64': wrapAt(Buffer.from(DOTENV).toString('base64'), 76, '\r\n'),
    'CRLF, hex': wrapAt(hex, 32, '\r\n'),
    'indented, trailing blanks': wrapAt(Buffer.from(DOTENV).toString('base64'), 16, ' \n    '),
    'in a YAML block': `data:\n  env: |\n    ${wrapAt(Buffer.from(DOTENV).toString('base64'), 40, '\n    ')}\n`,
  }
  for (const [label, text] of Object.entries(cases)) {
    const out = m.redact(text)
    assert.match(out, /\[REDACTED:OPENAI_API_KEY\]/, label)
    const decoded = label.includes('hex') || label.startsWith('xxd') || label === 'mixed case' ? [hexDecoding(out)] : base64Decodings(out)
    for (const d of decoded) assert.ok(!leaks(d), `${label}: ${d}`)
    assert.equal(m.test(text), true, label)
  }
  // The whole span goes, its line breaks with it; what is around stays.
  const split = `key: ${Buffer.from(KEY).toString('hex').slice(0, 30)}\n${Buffer.from(KEY).toString('hex').slice(30).toUpperCase()} end\n`
  assert.equal(m.redact(split), 'key: [REDACTED:OPENAI_API_KEY] end\n')
})

test('look-alikes of wrapped encodings pass untouched', () => {
  const m = secretMatcher(entries)
  const lookAlike = 'sk-live-4f9a8b7c6d5e4f3a2b1d' // one character off
  const texts = [
    // Ordinary multi-line text, code and listings.
    'drwxr-xr-x  2 user user 4096 Nov 25 14:00 src\n-rw-r--r--  1 user user  120 Nov 25 14:00 README.md\n',
    'function f() {\n  return abc\n    + def\n}\n\nThe quick brown fox\njumps over the lazy dog.\r\n',
    // base64 and hex of other data, wrapped as the tools do.
    wrapAt(Buffer.from('x'.repeat(10) + 'some other file with no secret in it at all\n'.repeat(20)).toString('base64'), 76),
    wrapAt(Buffer.from(Array.from({ length: 900 }, (_, i) => (i * 37) % 256)).toString('hex'), 60),
    // The encodings of a value one character off the secret.
    wrapAt(Buffer.from(`OPENAI_API_KEY=${lookAlike}\n`).toString('base64'), 76),
    wrapAt(Buffer.from(lookAlike).toString('hex'), 60),
    wrapAt(Buffer.from(lookAlike).toString('hex').toUpperCase(), 60),
    // The secret's own hex with one digit changed.
    Buffer.from(KEY).toString('hex').replace(/.$/, (d) => (d === '0' ? '1' : '0')),
    // The plain value is matched only as written: a line break inside it is not a wrap.
    `${KEY.slice(0, 14)}\n${KEY.slice(14)}`,
    // A base64 form in the wrong case is not that form.
    wrapAt(Buffer.from(KEY).toString('base64').toLowerCase(), 20),
  ]
  for (const text of texts) {
    assert.equal(m.redact(text), text, text)
    assert.equal(m.test(text), false, text)
  }
})

test('a streamed wrapped encoding comes out as redact makes it, however the pieces are cut', () => {
  const m = secretMatcher(entries)
  const text = [
    'some output\n',
    wrapAt(Buffer.from(`ab${DOTENV}`).toString('base64'), 76),
    '\nand hex:\n',
    wrapAt(Buffer.from(DOTENV).toString('hex').toUpperCase(), 60, '\r\n'),
    '\n  indented: ',
    wrapAt(Buffer.from(KEY).toString('base64'), 7, '  \n    '),
    '\nend hunter22',
  ].join('')
  const whole = m.redact(text)
  assert.equal((whole.match(/\[REDACTED:/g) ?? []).length, 4, whole)
  let seed = 7
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const cuts: number[][] = [...Array.from({ length: 6 }, (_, size) => [size + 1]), ...Array.from({ length: 30 }, () => [])]
  for (const fixed of cuts) {
    const stream = m.stream()
    const out: string[] = []
    for (let i = 0; i < text.length; ) {
      const size = fixed[0] ?? 1 + Math.floor(random() * (random() < 0.5 ? 4 : 90))
      out.push(stream.push(text.slice(i, i + size)))
      i += size
    }
    out.push(stream.flush())
    assert.equal(out.join(''), whole, `pieces ${fixed[0] ?? 'random'}`)
  }
  // Cut right after each line break: what was passed on by then decodes to no secret.
  const stream = m.stream()
  let passed = ''
  for (const line of text.split(/(?<=\n)/)) {
    passed += stream.push(line)
    for (const decoded of base64Decodings(passed)) assert.ok(!leaks(decoded), decoded)
  }
  assert.equal(passed + stream.flush(), whole)
})

test('wrapped matching finds what one pattern with a line break allowed between any two characters would', () => {
  // The reference: every form in one pattern, encoded ones with an optional line break (blanks,
  // \r?\n, blanks) between every two characters, hex in either case. Slow, but plainly right.
  const BREAK = '(?:[ \\t]{0,32}\\r?\\n[ \\t]{0,32})?'
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const reference = (list: { name: string; value: string }[]) => {
    const byForm = new Map<string, { name: string; kind: string }>()
    for (const { name, value } of list) {
      if (!isRedactableSecret(value)) continue
      const plain = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])
      const hex = Buffer.from(value).toString('hex')
      for (const f of secretForms(value)) {
        const kind = f === hex && value.length >= 12 ? 'hex' : plain.has(f) ? 'plain' : 'base64'
        const known = byForm.get(f)
        if (!known) byForm.set(f, { name, kind })
        else if (known.kind === 'plain' || kind === 'hex') known.kind = kind
      }
    }
    const forms = [...byForm.keys()].sort((a, b) => b.length - a.length)
    const source = forms.map((f) => {
      const { kind } = byForm.get(f)!
      if (kind === 'plain') return f.length >= 12 ? escape(f) : `(?<![A-Za-z0-9])${escape(f)}(?![A-Za-z0-9])`
      return [...f].map((c) => (kind === 'hex' && /[a-f]/.test(c) ? `[${c}${c.toUpperCase()}]` : escape(c))).join(BREAK)
    })
    const pattern = new RegExp(source.join('|'), 'g')
    const nameOf = (m: string) => {
      const bare = m.replace(/[ \t\r\n]/g, '')
      return (byForm.get(m) ?? byForm.get(bare) ?? byForm.get(bare.toLowerCase()))!.name
    }
    return (text: string) => text.replace(pattern, (m) => `[REDACTED:${nameOf(m)}]`)
  }
  let seed = 42
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)))
  const breaks = ['\n', '\r\n', ' \n', '\n  ', '\t\r\n\t', '\n\n', `${' '.repeat(33)}\n`]
  const wrap = (s: string) => {
    const width = pick([1, 2, 3, 5, 13, 60, 76, 1000])
    return s.replace(new RegExp(`.{${width}}(?=.)`, 'gs'), (line) => line + pick(breaks))
  }
  for (let round = 0; round < 150; round++) {
    const list = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => ({
      name: `S${i}`,
      value: pick([`key-${i}-${bytes(8 + Math.floor(random() * 12)).toString('hex')}`, bytes(9 + Math.floor(random() * 16)).toString('base64'), `pw${i}x${Math.floor(random() * 1e6)}`]),
    }))
    const parts = Array.from({ length: 3 + Math.floor(random() * 6) }, () => {
      const value = pick(list).value
      return pick([
        () => 'plain words\nand lines\r\n  indented ',
        () => value,
        () => wrap(Buffer.from(pick(['', 'a', 'ab']) + value + pick(['', '\n'])).toString(pick(['base64', 'base64url'] as const))),
        () => wrap(pick([(h: string) => h, (h: string) => h.toUpperCase(), (h: string) => h.replace(/[a-f]/g, (c) => (random() < 0.5 ? c.toUpperCase() : c))])(Buffer.from(value).toString('hex'))),
        () => wrap(bytes(Math.floor(random() * 50)).toString(pick(['base64', 'hex'] as const))),
        () => value.slice(0, Math.floor(random() * value.length)),
      ])()
    })
    const text = parts.join('')
    const m = secretMatcher(list)
    const expected = reference(list)(text)
    assert.equal(m.redact(text), expected, JSON.stringify({ list, text }))
    assert.equal(m.test(text), expected !== text)
    const stream = m.stream()
    let out = ''
    for (let i = 0; i < text.length; ) {
      const size = 1 + Math.floor(random() * 12)
      out += stream.push(text.slice(i, i + size))
      i += size
    }
    assert.equal(out + stream.flush(), expected, JSON.stringify({ list, text }))
  }
})
