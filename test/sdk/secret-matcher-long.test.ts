// Long secrets (sdk/secrets/long.ts): a key file of tens of KB is a secret like any other. Its forms
// are too long for one regular expression (building the matcher used to throw "Regular expression
// too large"), so they are searched as literals; still every form is redacted, wrapped and
// streamed ones too, and a look-alike that differs by one character passes untouched.

import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { secretMatcher } from '../../sdk/index.ts'

// 64 KB of base64 (`+`, `/` and `=` make its URL form differ); a 700-character one, whose plain
// form goes into a pattern and its encoded forms (940 and 1400 characters) are searched as literals.
const BIG = randomBytes(48 * 1024).toString('base64')
const MID = `mid-${randomBytes(348).toString('hex')}`
const entries = [
  { name: 'BIG_KEY', value: BIG },
  { name: 'MID_TOKEN', value: MID },
  { name: 'OPENAI_API_KEY', value: 'sk-live-4f9a8b7c6d5e4f3a2b1c' },
]

const wrapAt = (text: string, width: number, sep = '\n') => text.replace(new RegExp(`.{${width}}(?=.)`, 'gs'), (line) => line + sep)
const b64 = (s: string) => Buffer.from(s).toString('base64')
const hex = (s: string) => Buffer.from(s).toString('hex')
/** What decoding `out` could give (markers and blanks out) at each base64 alignment, and as hex. */
const decodings = (out: string) => {
  const bare = out.replace(/\[REDACTED:[A-Z_]+\]/g, '').replace(/\s/g, '')
  return [...[0, 1, 2, 3].map((shift) => Buffer.from(bare.slice(shift), 'base64').toString('latin1')), Buffer.from(bare, 'hex').toString('latin1')]
}
/** Whether `text` holds 48 characters of `secret` in a row, sampled every 512 characters. */
const holdsPart = (text: string, secret: string) => Array.from({ length: Math.floor(secret.length / 512) }, (_, i) => secret.slice(i * 512, i * 512 + 48)).some((p) => text.includes(p))

test('a 64 KB secret builds a matcher and is redacted in plain, URL, JSON, base64 and hex forms, wrapped ones too', () => {
  const m = secretMatcher(entries) // threw "Regular expression too large" before
  assert.equal(m.size, 3)
  for (const [label, secret, name] of [['64 KB', BIG, 'BIG_KEY'], ['700 chars', MID, 'MID_TOKEN']] as const) {
    const marker = `[REDACTED:${name}]`
    assert.equal(m.redact(`key=${secret}\n`), `key=${marker}\n`, label)
    assert.equal(m.redact(`u=${encodeURIComponent(secret)}&x`), `u=${marker}&x`, label)
    assert.equal(m.redact(JSON.stringify({ k: secret })), `{"k":"${marker}"}`, label)
    assert.equal(m.redact(b64(secret)), marker, label)
    assert.equal(m.redact(hex(secret)), marker, label)
    assert.equal(m.redact(`0x${hex(secret).toUpperCase()};`), `0x${marker};`, label)
    assert.equal(m.test(`a ${secret} b`), true, label)
    const encodings = [
      ...['', 'a', 'ab', 'PRIVATE_KEY='].map((prefix) => b64(`${prefix}${secret}\nmore`)),
      Buffer.from(`x${secret}`).toString('base64url'),
      wrapAt(b64(`ab${secret}`), 76),
      wrapAt(b64(secret), 64, '\r\n'),
      wrapAt(hex(secret), 60),
      wrapAt(hex(`z${secret}`).toUpperCase(), 60, '\r\n  '),
    ]
    for (const encoded of encodings) {
      const out = m.redact(`begin\n${encoded}\nend`)
      assert.match(out, new RegExp(`\\[REDACTED:${name}\\]`), `${label}: ${out.slice(0, 200)}`)
      assert.ok(out.startsWith('begin\n') && out.endsWith('\nend'), label)
      for (const decoded of decodings(out)) assert.ok(!holdsPart(decoded, secret), `${label}: decodes back`)
      assert.equal(m.test(encoded), true, label)
    }
  }
})

test('a streamed 64 KB secret comes out as redact makes it, never a part of it, in any pieces', () => {
  const m = secretMatcher(entries)
  const text = `start ${BIG} middle\n${wrapAt(hex(BIG), 60)}\nand ${wrapAt(b64(`a${MID}`), 76)} end`
  const whole = m.redact(text)
  assert.equal(whole, 'start [REDACTED:BIG_KEY] middle\n[REDACTED:BIG_KEY]\nand ' + whole.slice(whole.lastIndexOf('and ') + 4))
  assert.match(whole, /\[REDACTED:MID_TOKEN\][A-Za-z0-9+/=]{0,3} end$/)
  let seed = 11
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  for (const size of [4096, 777, 0]) {
    const stream = m.stream()
    const out: string[] = []
    for (let i = 0; i < text.length; ) {
      const n = size || 1 + Math.floor(random() * 3000)
      out.push(stream.push(text.slice(i, i + n)))
      i += n
    }
    out.push(stream.flush())
    assert.equal(out.join(''), whole, `pieces of ${size || 'random'}`)
    // Not all held to the end: what comes before the secret is passed on.
    assert.ok(out.slice(0, 3).join('').startsWith('start '), `pieces of ${size || 'random'}`)
  }
})

test('look-alikes of a 64 KB secret (one character changed, a prefix) pass untouched, streamed too', () => {
  const m = secretMatcher(entries)
  const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1)
  const lookAlikes = [flip(BIG, BIG.length - 5), flip(BIG, 30_000), flip(BIG, 3), BIG.slice(0, -4), BIG.slice(4)]
  for (const like of lookAlikes) {
    for (const text of [`x ${like} y`, hex(like), wrapAt(b64(like), 76), wrapAt(hex(like), 60)]) {
      assert.equal(m.redact(text), text)
      assert.equal(m.test(text), false)
      const stream = m.stream()
      let out = ''
      for (let i = 0; i < text.length; i += 5000) out += stream.push(text.slice(i, i + 5000))
      assert.equal(out + stream.flush(), text)
    }
  }
  assert.equal(m.redact('ordinary output\nof a command\n'), 'ordinary output\nof a command\n')
})
