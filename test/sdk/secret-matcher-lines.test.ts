// Multi-line secrets (sdk/secrets/forms.ts partsOf): a key file is matched whole, with its line
// breaks either way (`\n`, `\r\n`), and line by line, as tools print it: numbered (read_file's
// `N|`), filtered (`grep -v -- -----`), indented. The armour lines, lines too short or too common
// to be secrets alone, and other keys' lines pass untouched.

import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { secretForms, secretMatcher } from '../../sdk/index.ts'
import { sampledSearch } from '../../sdk/secrets/sampled.ts'

const wrap = (text: string, width: number) => text.match(new RegExp(`.{1,${width}}`, 'g'))!
const BEGIN = '-----BEGIN OPENSSH PRIVATE KEY-----'
const END = '-----END OPENSSH PRIVATE KEY-----'
const keyFile = () => {
  const body = wrap(randomBytes(400).toString('base64'), 70)
  return { body, value: [BEGIN, ...body, END].join('\n') }
}
const { body, value: KEY } = keyFile()
const MARK = '[REDACTED:DEPLOY_PRIVATE_KEY]'
const entries = [{ name: 'DEPLOY_PRIVATE_KEY', value: KEY }, { name: 'OPENAI_API_KEY', value: 'sk-live-4f9a8b7c6d5e4f3a2b1c' }]
/** Whether `text` holds 12 characters in a row of any line of the key's body. */
const leaks = (text: string) => body.some((line) => Array.from({ length: line.length - 11 }, (_, i) => line.slice(i, i + 12)).some((piece) => text.includes(piece)))

test('a key read line by line (read_file `N|`), filtered to its body, or indented leaks no line of it', () => {
  const m = secretMatcher(entries)
  const numbered = KEY.split('\n').map((line, i) => `${i + 1}|${line}`).join('\n')
  assert.equal(m.redact(numbered), [`1|${BEGIN}`, ...body.map((_, i) => `${i + 2}|${MARK}`), `${body.length + 2}|${END}`].join('\n'))
  // `grep -v -- -----`: the body alone, its lines joined.
  assert.equal(m.redact(body.join('\n')), body.map(() => MARK).join('\n'))
  // A YAML block or an indented listing.
  const indented = `key: |\n${KEY.split('\n').map((line) => `    ${line}`).join('\n')}\n`
  const out = m.redact(indented)
  assert.ok(!leaks(out), out)
  assert.match(out, /^key: \|\n {4}-----BEGIN OPENSSH PRIVATE KEY-----\n {4}\[REDACTED:DEPLOY_PRIVATE_KEY\]\n/)
  // One line quoted in a sentence or a JSON string.
  assert.equal(m.redact(`line 3 is ${body[1]}.`), `line 3 is ${MARK}.`)
  assert.equal(m.redact(JSON.stringify({ line: body[2] })), `{"line":"${MARK}"}`)
  assert.equal(m.test(`x ${body[3]} y`), true)
})

test('a CRLF copy is matched whole, and line by line without its armour', () => {
  const m = secretMatcher(entries)
  const crlf = KEY.replace(/\n/g, '\r\n')
  assert.equal(m.redact(`${crlf}\r\n`), `${MARK}\r\n`)
  assert.equal(m.redact(JSON.stringify(crlf)), `"${MARK}"`)
  assert.equal(m.redact(body.join('\r\n')), body.map(() => MARK).join('\r\n'))
  // A value saved with CRLF is matched with LF too.
  const fromWindows = secretMatcher([{ name: 'WIN_KEY', value: crlf }])
  assert.equal(fromWindows.redact(`a\n${KEY}\nb`), 'a\n[REDACTED:WIN_KEY]\nb')
  assert.equal(fromWindows.redact(`${body[0]}\n`), '[REDACTED:WIN_KEY]\n')
})

test('a streamed key is redacted line by line as the whole text is', () => {
  const m = secretMatcher(entries)
  const text = `cat -n id_deploy\n${KEY.split('\n').map((line, i) => `     ${i + 1}\t${line}`).join('\n')}\ndone`
  const stream = m.stream()
  let out = ''
  for (let i = 0; i < text.length; i += 7) out += stream.push(text.slice(i, i + 7))
  out += stream.flush()
  assert.equal(out, m.redact(text))
  assert.ok(!leaks(out))
})

test('look-alikes pass: armour lines, another key, lines too short or too common to be secrets alone', () => {
  const m = secretMatcher(entries)
  const other = keyFile().value
  assert.equal(m.redact(other), other, 'another key: same armour, other lines')
  assert.equal(m.redact(`${BEGIN}\n${END}`), `${BEGIN}\n${END}`)
  // A multi-line secret with lines that are no secret alone: a short one, a switch, a port.
  const notes = secretMatcher([{ name: 'NOTES_SECRET', value: 'first-line-of-notes-0123\nabc\ntrue\n8642\npassword' }])
  assert.equal(notes.redact('abc true 8642 password'), 'abc true 8642 password')
  assert.equal(notes.redact('first-line-of-notes-0123 and more'), '[REDACTED:NOTES_SECRET] and more')
  // A one-line value gets no line forms: its forms have no line break and no extra entries.
  assert.deepEqual(secretForms('sk-live-4f9a8b7c6d5e4f3a2b1c').filter((f) => f.includes('\n')), [])
  assert.equal(secretForms(KEY).includes(BEGIN), false)
})

test('a key of 1000 lines builds a matcher and is matched line by line', () => {
  const lines = wrap(randomBytes(54_000).toString('base64'), 72)
  const bundle = ['-----BEGIN RSA PRIVATE KEY-----', ...lines, '-----END RSA PRIVATE KEY-----'].join('\n')
  const m = secretMatcher([{ name: 'BUNDLE_KEY', value: bundle }])
  assert.equal(m.redact(bundle), '[REDACTED:BUNDLE_KEY]')
  assert.equal(m.redact(`${lines[500]}\n${lines[999]}`), '[REDACTED:BUNDLE_KEY]\n[REDACTED:BUNDLE_KEY]')
  const clean = 'drwxr-xr-x  2 user user 4096 Nov 25 14:00 some/ordinary/path/file-name.txt\n'.repeat(2000)
  assert.equal(m.redact(clean), clean)
})

test('the sampled search of lines finds what a leftmost-longest search of the same forms finds', () => {
  // Forms sharing pieces (one inside another, one a prefix of another), put at every alignment
  // among filler that shares their alphabet; compared with a naive search at every place.
  const base = randomBytes(120).toString('base64')
  const forms = [base.slice(0, 64), base.slice(10, 74), base.slice(0, 40), base.slice(80, 111), randomBytes(48).toString('base64')]
  const search = sampledSearch(forms)
  const naive = (text: string, from: number) => {
    for (let s = from; s < text.length; s++) {
      const hits = forms.filter((f) => text.startsWith(f, s))
      if (hits.length) return [s, Math.max(...hits.map((f) => f.length))]
    }
    return undefined
  }
  let matches = 0
  for (let round = 0; round < 300; round++) {
    let text = ''
    for (let k = 0; k < 4; k++) text += randomBytes(round % 37).toString('base64').slice(0, round % 29) + (Math.random() < 0.8 ? forms[(round + k) % forms.length]!.slice(0, 20 + ((round * 7 + k) % 60)) : '')
    // Every match in turn, from a few starting places.
    for (let from: number | undefined = round % 11; from !== undefined; ) {
      search.lastIndex = from
      const got = search.exec(text)
      const want = naive(text, from)
      assert.deepEqual(got ? [got.index, got[0].length] : undefined, want, `round ${round} from ${from}`)
      from = want ? want[0]! + want[1]! : undefined
      if (want) matches++
    }
  }
  assert.ok(matches > 200, `${matches} matches compared`)
})
