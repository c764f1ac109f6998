// Live notifications of a background process (level `all`) are redacted as one stream: a secret
// that a slow command prints across two notifications shows in neither, not even in part, while a
// look-alike that is no secret comes through whole, and ordinary output is not held back.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import type { SecretEntry } from 'agent/sdk'
import { LiveOutput } from '../../../extensions/tools-terminal/live-output.ts'
import { session, tempDir, terminalKernel } from './helpers.ts'

const KEY = 'sk-bg-0123456789abcdef0123'
const LOOK_ALIKE = 'sk-bg-0123456789abcdef0124'

/** Runs `command` in the background at level `all` and returns its running-output notifications. */
async function liveNotifications(t: TestContext, command: string): Promise<string[]> {
  const k = await terminalKernel({ env: { AGENT_BACKGROUND_NOTIFICATIONS: 'all' }, dotenv: { BG_SERVICE_TOKEN: KEY }, config: { terminal: { background_output_interval: 1 } } })
  t.after(() => k.close())
  const progress: string[] = []
  const s = session(tempDir(t), { progress: (text) => progress.push(text) })
  const started = await k.call('terminal', { command, background: true }, s)
  await k.call('process', { action: 'wait', process_id: started.process_id, timeout: 10 }, s)
  await new Promise((r) => setTimeout(r, 50))
  const prefix = `[${started.process_id}] `
  return progress.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length))
}

test('a secret printed across two live notifications shows in neither, not even half of it', async (t) => {
  // The first half, a pause longer than the notification interval, then the second half (and a
  // pause: output that comes with the exit goes into the exit notification instead).
  const live = await liveNotifications(t, `printf 'token ${KEY.slice(0, 13)}'; sleep 1.3; printf '${KEY.slice(13)} done\\n'; sleep 0.6`)
  assert.ok(live.length >= 2, JSON.stringify(live))
  for (const text of live) {
    assert.ok(!text.includes(KEY.slice(0, 13)) && !text.includes(KEY.slice(13)), `a half of the secret: ${JSON.stringify(live)}`)
  }
  // What comes before the secret is not held back; the secret arrives whole, as its marker.
  assert.equal(live[0], 'token ')
  assert.equal(live.join(''), 'token [REDACTED:BG_SERVICE_TOKEN] done\n')
})

test('a look-alike printed across two live notifications comes through whole', async (t) => {
  const live = await liveNotifications(t, `printf 'public ${LOOK_ALIKE.slice(0, 13)}'; sleep 1.3; printf '${LOOK_ALIKE.slice(13)} done\\n'; sleep 0.6`)
  assert.equal(live.join(''), `public ${LOOK_ALIKE} done\n`, JSON.stringify(live))
})

test('LiveOutput: pieces cut anywhere never show part of a secret; a secret learnt mid-stream is caught', () => {
  // Frozen lists, as Settings.secretEntries hands them out (one per set).
  const frozen = (list: SecretEntry[]) => Object.freeze(list.map((e) => Object.freeze(e))) as SecretEntry[]
  let entries = frozen([{ name: 'BG_SERVICE_TOKEN', value: KEY }])
  const live = new LiveOutput({ secretEntries: () => entries })
  const text = `a ${KEY} b ${Buffer.from(KEY).toString('base64')} c ${LOOK_ALIKE} d\n`
  for (let size = 1; size <= 7; size++) {
    const sent: string[] = []
    for (let i = 0; i < text.length; i += size) {
      live.push(text.slice(i, i + size))
      sent.push(live.take())
    }
    // (The look-alike shares all but its last character with the secret: it is held back, then sent whole.)
    for (const piece of sent.map((p) => p.replace(LOOK_ALIKE, ''))) {
      for (let i = 0; i + 8 <= KEY.length; i++) assert.ok(!piece.includes(KEY.slice(i, i + 8)), `pieces of ${size}: ${JSON.stringify(sent)}`)
    }
    assert.match(sent.join(''), /^a \[REDACTED:BG_SERVICE_TOKEN\] b \[REDACTED:BG_SERVICE_TOKEN\] c sk-bg-0123456789abcdef0124 d\n$/)
  }
  // A secret written to .env while the process runs: its first half, held back under the new set.
  const later = 'tok-later-9f8e7d6c5b4a3f2e1d'
  live.push(`x ${later.slice(0, 10)}`)
  entries = frozen([...entries, { name: 'LATER_TOKEN', value: later }])
  const first = live.take()
  live.push(`${later.slice(10)} y`)
  assert.equal(first + live.take(), 'x [REDACTED:LATER_TOKEN] y')
  assert.ok(!first.includes(later.slice(0, 8)), first)
})

test('LiveOutput: secrets that cannot be read withhold the output', () => {
  const live = new LiveOutput({ secretEntries: () => { throw new Error('unreadable .env') } })
  live.push(`token ${KEY}`)
  assert.equal(live.pending, true)
  assert.match(live.take(), /^output withheld: .*unreadable \.env/)
})
