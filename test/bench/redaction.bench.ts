// What known-secret redaction costs (sdk/secrets/): building the matcher for 40 secrets
// (each with its URL, JSON, hex and base64 forms), a cached lookup, and redacting 1 MB and 10 MB of
// tool output with no secret in it and with secrets sprinkled through it; plus the same through
// FileSettings.secretEntries() as the runtime calls it per tool result, a whole 500 KB transcript as
// the runtime clears each model request, and a streamed answer. Prints figures; asserts nothing.

import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { knownSecretsRedactor, redactDeep, secretMatcher, type SecretEntry } from '../../sdk/index.ts'
import { FileSettings } from '../../kernel/config/settings.ts'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const time = (runs: number, fn: () => void) => {
  const out: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    fn()
    out.push(performance.now() - started)
  }
  return median(out)
}

const entries: SecretEntry[] = Array.from({ length: 40 }, (_, i) => ({ name: `SERVICE_${i}_API_KEY`, value: `key-${i}-${randomBytes(16).toString('hex')}` }))
const build = time(20, () => secretMatcher([...entries, { name: 'FRESH', value: `fresh-${randomBytes(12).toString('hex')}` }]))
const matcher = secretMatcher(entries)
const lookup = time(200, () => secretMatcher(entries))
console.log(`build a matcher for 41 secrets: ${build.toFixed(2)} ms; cached lookup: ${(lookup * 1000).toFixed(1)} µs`)

const line = 'drwxr-xr-x  2 user user 4096 Nov 25 14:00 some/ordinary/path/file-name.txt 0123456789abcdef\n'
for (const mb of [1, 10]) {
  const clean = line.repeat(Math.ceil((mb * 1024 * 1024) / line.length))
  const dirty = clean.replace(/\n/g, (m, offset: number) => (offset % 20_000 < line.length ? ` ${entries[offset % 40]!.value}\n` : m))
  const t1 = time(5, () => matcher.redact(clean))
  const t2 = time(5, () => matcher.redact(dirty))
  const hits = (matcher.redact(dirty).match(/\[REDACTED:/g) ?? []).length
  console.log(`redact ${mb} MB: no secret ${t1.toFixed(1)} ms (${(mb / (t1 / 1000)).toFixed(0)} MB/s); ${hits} secrets ${t2.toFixed(1)} ms`)
}

const transcript = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'tool' : 'assistant', content: line.repeat(28), toolCalls: i % 2 ? undefined : [{ id: `c${i}`, name: 'terminal', arguments: '{"command":"ls -la"}' }] }))
const perRequest = time(20, () => redactDeep(transcript, matcher.redact))
console.log(`one model request of 200 messages (${(JSON.stringify(transcript).length / 1024).toFixed(0)} KB): ${perRequest.toFixed(2)} ms`)
const answer = line.repeat(100)
const perStream = time(20, () => {
  const stream = matcher.stream()
  for (let i = 0; i < answer.length; i += 8) stream.push(answer.slice(i, i + 8))
  stream.flush()
})
console.log(`a streamed answer of ${(answer.length / 1024).toFixed(0)} KB in 8-character deltas: ${perStream.toFixed(2)} ms (${((perStream * 1000) / (answer.length / 8)).toFixed(1)} µs a delta)`)

const home = mkdtempSync(join(tmpdir(), 'agent-bench-'))
try {
  writeFileSync(join(home, '.env'), entries.slice(0, 20).map((e) => `${e.name}=${e.value}`).join('\n') + '\n')
  const env = Object.fromEntries(entries.slice(20).map((e) => [e.name, e.value]))
  const settings = new FileSettings({ home, env: { ...env, PATH: '/usr/bin', HOME: home } })
  const output = line.repeat(500) // a typical 50 KB tool result
  const perResult = time(200, () => knownSecretsRedactor(settings)(output))
  console.log(`one 50 KB tool result through settings (entries read, matcher looked up, text redacted): ${perResult.toFixed(2)} ms`)
} finally {
  rmSync(home, { recursive: true, force: true })
}
