// Known-secret redaction (sdk/secret-matcher.ts): each value and the encodings that leak it unchanged
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
