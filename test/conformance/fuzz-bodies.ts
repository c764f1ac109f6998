// A seeded, deterministic generator of hostile request bodies for the intake fuzz test: deep
// nesting, huge numbers, odd unicode (lone surrogates, raw invalid UTF-8, NULs, BOMs), wrong types,
// duplicate and prototype keys, long strings within limits, truncated JSON, many keys, and mutated
// near-valid bodies, so some reach the handlers' own checks. No dependency: mulberry32.

export type Rng = () => number

export function seeded(seed: number): Rng {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const int = (rng: Rng, max: number) => Math.floor(rng() * max)
const pick = <T>(rng: Rng, list: readonly T[]): T => list[int(rng, list.length)]!

const ODD_STRINGS = [
  '\\ud800', '\\udfff', '\\ud83d', 'a\\udc00b', '\\u0000', '\\u202e\\u2066', '\\uffff\\ufffe', '\\ud83d\\ude00',
  'ä̈̈̈̈̈', '\u{1F4A9}'.repeat(50), '\u0301'.repeat(300), 'NaN', '__proto__', '\\"', '\\\\', '</script>', '${a.b}', '{__raw__}',
]
const ODD_NUMBERS = ['1e999999', '-1e999999', '123456789012345678901234567890', '0.0000000000000000000000001e-400', '-0', '1E+2', '9007199254740993', '1.7976931348623157e309']
const WRONG_VALUES = ['null', 'true', '[]', '{}', '""', '0', '[null]', '[[[]]]', '{"":{}}', '-1', '"\\u0000"']

function oddString(rng: Rng): string {
  return `"${Array.from({ length: 1 + int(rng, 4) }, () => pick(rng, ODD_STRINGS)).join('')}"`
}

function value(rng: Rng, depth: number): string {
  const r = rng()
  if (depth > 4 || r < 0.25) return pick(rng, [...WRONG_VALUES, ...ODD_NUMBERS, oddString(rng)])
  if (r < 0.45) return `[${Array.from({ length: int(rng, 4) }, () => value(rng, depth + 1)).join(',')}]`
  if (r < 0.55) return `"${'x'.repeat(int(rng, 5000))}"`
  const keys = Array.from({ length: int(rng, 5) }, () => pick(rng, ['"role"', '"content"', '"type"', '"text"', '"__proto__"', '"constructor"', '"a"', '"a"', oddString(rng)]))
  return `{${keys.map((k) => `${k}:${value(rng, depth + 1)}`).join(',')}}`
}

/** A near-valid body for the intake named (its expected shape), so mutations reach deeper checks. */
function nearValid(rng: Rng, kind: JsonIntake): string {
  const content = pick(rng, ['"hi"', oddString(rng), value(rng, 2), '[{"type":"text","text":"hi"}]', '[{"type":"input_image","image_url":"data:x"}]'])
  const role = pick(rng, ['"user"', '"system"', '"developer"', '"assistant"', '"tool"', '"nobody"', '5'])
  if (kind === 'chat') {
    const messages = Array.from({ length: 1 + int(rng, 3) }, () => `{"role":${role},"content":${content}}`).join(',')
    return `{"model":${pick(rng, ['"agent"', '7', 'null', oddString(rng)])},"messages":[${messages}],"stream":${pick(rng, ['false', 'false', '"yes"', 'null', '1'])}${rng() < 0.3 ? `,"max_tokens":${pick(rng, ODD_NUMBERS)}` : ''}}`
  }
  if (kind === 'responses') {
    const input = pick(rng, [content, `[{"role":${role},"content":${content}}]`, `[{"type":"message","role":${role},"content":[{"type":"input_text","text":${content}}]}]`])
    return `{"input":${input},"store":${pick(rng, ['false', 'true', '"no"'])}${rng() < 0.3 ? `,"previous_response_id":${oddString(rng)}` : ''}${rng() < 0.2 ? `,"conversation":${value(rng, 3)}` : ''}${rng() < 0.2 ? `,"instructions":${value(rng, 3)}` : ''}}`
  }
  if (kind === 'webhook') return `{"action":${oddString(rng)},"repository":{"full_name":${content}},"head_commit":${value(rng, 2)},"number":${pick(rng, ODD_NUMBERS)}}`
  return `{"name":${content},"extra":${value(rng, 2)}}`
}

export type JsonIntake = 'chat' | 'responses' | 'webhook' | 'ipc'

/** The body bytes for case `i` of a JSON intake; the kinds rotate so every kind is well covered. */
export function jsonBody(rng: Rng, kind: JsonIntake, i: number, maxBytes: number): Buffer {
  const text = jsonText(rng, kind, i, maxBytes)
  const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text
  return body.length > maxBytes ? body.subarray(0, maxBytes) : body
}

function jsonText(rng: Rng, kind: JsonIntake, i: number, maxBytes: number): string | Buffer {
  const base = nearValid(rng, kind)
  switch (i % 14) {
    case 0: {
      const depth = pick(rng, [65, 100, 1000, 10_000, 100_000])
      const open = pick(rng, ['[', '{"a":'])
      return open.repeat(depth) + (rng() < 0.5 ? '1' + (open === '[' ? ']' : '}').repeat(depth) : '')
    }
    case 1:
      return `{"n":${pick(rng, ODD_NUMBERS)},"messages":${pick(rng, ODD_NUMBERS)},"input":${pick(rng, ODD_NUMBERS)}}`
    case 2:
      return `{"messages":[{"role":"user","content":${oddString(rng)}}],"input":${oddString(rng)},${oddString(rng)}:1}`
    case 3: // raw bytes that are not UTF-8 at all, inside and outside strings
      return Buffer.concat([Buffer.from('{"input":"'), Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90]), Buffer.from('","messages":[]}')])
    case 4:
      return `{"messages":${pick(rng, WRONG_VALUES)},"input":${pick(rng, WRONG_VALUES)},"stream":${pick(rng, WRONG_VALUES)},"model":${pick(rng, WRONG_VALUES)}}`
    case 5:
      return `{"messages":[],"messages":{"role":"user"},"input":"a","input":[],"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}`
    case 6: {
      const size = Math.min(maxBytes - 200, pick(rng, [10_000, 50_000, 300_000]))
      return kind === 'chat' ? `{"model":"agent","messages":[{"role":"user","content":"${'y'.repeat(Math.max(0, size))}"}]}` : `{"input":"${'y'.repeat(Math.max(0, size))}"}`
    }
    case 7:
      return base.slice(0, int(rng, base.length))
    case 8:
      return pick(rng, ['\ufeff', '\ufeff\ufeff', '\u200b']) + base
    case 9: // a UTF-16 byte order mark and body: bytes JSON.parse never sees as JSON
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(base, 'utf16le')])
    case 10:
      return `{${Array.from({ length: pick(rng, [9_000, 10_001, 20_000]) }, (_, k) => `"k${k}":0`).join(',')}}`
    case 11:
      return pick(rng, ['', ' ', 'null', '[]', '"str"', '42', 'true', '{', '}', '{"a":}', '[1,]', "{'a':1}", 'NaN', '{"a":1}garbage', '\u0000'])
    case 12: // one random byte flipped in a near-valid body
      return base.slice(0, Math.max(0, int(rng, base.length))) + String.fromCharCode(int(rng, 0x80)) + base.slice(int(rng, base.length))
    default: // wrong types all through (cheap: a run starts only for the BOM-prefixed and rare flips)
      return value(rng, 0)
  }
}

/** A form body for an SMS-style webhook: plausible fields, odd encodings, too many or long fields. */
export function formBody(rng: Rng, i: number, maxBytes: number): Buffer {
  const enc = (s: string) => encodeURIComponent(s)
  const values = [enc('+15550001111'), enc('hello'), '%ED%A0%80', '%FF%FE', '%', '%%%', '+', '', '&', enc('\u{1F4A9}\u202e')]
  const field = () => `${pick(rng, ['From', 'To', 'Body', 'MessageSid', 'NumMedia', 'MediaUrl0', '', '%', 'A%ZZ', enc('\u{1F4A9}')])}=${rng() < 0.05 ? 'x'.repeat(int(rng, 20_000)) : pick(rng, values)}`
  // Fields are added only while the body fits: the generator stays cheap whatever it draws.
  const fields = (count: number, separator = '&') => {
    let text = ''
    for (let k = 0; k < count && text.length < maxBytes; k++) text += (k ? separator : '') + field()
    return text
  }
  let text: string
  switch (i % 6) {
    case 0:
      text = fields(pick(rng, [150, 201, 5000]))
      break
    case 1:
      text = '&'.repeat(5000) + 'Body=x'
      break
    case 2:
      text = `From=${enc('+1555' + int(rng, 1e7))}&Body=${pick(rng, ['%ED%A0%80', enc('\u202e'), '%00', enc('/stop'), '%'])}&MessageSid=SM${i}`
      break
    default:
      text = fields(1 + int(rng, 30), pick(rng, ['&', '&&', ';']))
  }
  const body = Buffer.from(text, 'latin1')
  return body.length > maxBytes ? body.subarray(0, maxBytes) : body
}
