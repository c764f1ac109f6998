// Against a running `agent gateway run` (real runtime, scripted model, real gateway lifecycle) and
// the loopback fake signal-cli daemon: a DM answered and a stranger not; groups allowed by id, not
// allowed, opened by `*`, disabled when unset; Note to Self answered once (its echo dropped); a
// group message from the owner's linked device; the stream dropped and resumed; SIGINT exits 0 with
// no phone number in the output. A daemon that answers 404 on its check (another REST wrapper):
// `gateway run` exits 2 with one line saying so.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { lastUser, modelPrompts, startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { until } from '../../helpers/until.ts'
import { ACCOUNT, ALICE, BOB, dm, inGroup, MALLORY, OTHER_GROUP, ownSent, startFakeDaemon, TEAM, type FakeDaemon } from './fake-daemon.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

function home(t: TestContext): string {
  const dir = tempDir(t)
  writeFileSync(
    join(dir, 'config.yaml'),
    YAML.stringify({
      _config_version: 10,
      platforms: { signal: { extra: { reconnect_initial_ms: 100, reconnect_max_ms: 500 } } },
      gateway: { reconnect: { initial_ms: 200, max_ms: 1000 }, human_delay: { min_ms: 10, max_ms: 30 } },
    }),
  )
  return dir
}

function env(daemon: FakeDaemon, model: ScriptedModelServer, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    SIGNAL_HTTP_URL: daemon.url,
    SIGNAL_ACCOUNT: ACCOUNT,
    SIGNAL_ALLOWED_USERS: `${ALICE},${ACCOUNT}`,
    ...scriptedModelEnv(model),
    ...extra,
  }
}

async function peers(t: TestContext) {
  const daemon = await startFakeDaemon()
  t.after(() => daemon.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: `Answer to: ${lastUser(body)}` }) })
  t.after(() => model.close())
  return { daemon, model }
}

const sentTo = (daemon: FakeDaemon, key: 'recipient' | 'groupId', id: string) => daemon.sends().filter((c) => (key === 'recipient' ? c.params.recipient?.[0] === id : c.params.groupId === id))

test('Signal end to end through `agent gateway run`', async (t) => {
  const { daemon, model } = await peers(t)
  const agent = startAgent(['gateway', 'run'], { home: home(t), logLevel: 'debug', env: env(daemon, model, { SIGNAL_GROUP_ALLOWED_USERS: TEAM }) })
  t.after(() => agent.stop('SIGKILL'))
  await agent.waitFor(/gateway running \(adapters: [^)]*signal/, 30_000)
  const waitSent = (key: 'recipient' | 'groupId', id: string, count = 1) => until(() => sentTo(daemon, key, id).length >= count, 20_000, () => `an answer to ${id}\nstderr: ${agent.stderr().slice(-3000)}`)

  await t.test('a DM from an allowed user is answered; a stranger\'s is not', async () => {
    daemon.push(dm(MALLORY, 'let me in'))
    daemon.push(dm(ALICE, 'What is the capital of France?'))
    await waitSent('recipient', ALICE)
    assert.equal(sentTo(daemon, 'recipient', ALICE)[0]!.params.message, 'Answer to: What is the capital of France?')
    assert.ok(daemon.calls.some((c) => c.method === 'sendTyping'))
    assert.equal(sentTo(daemon, 'recipient', MALLORY).length, 0)
  })

  await t.test('an allowed group is answered in the group; another group is not', async () => {
    daemon.push(inGroup(BOB, OTHER_GROUP, 'in the other group'))
    daemon.push(inGroup(BOB, TEAM, 'hello team'))
    await waitSent('groupId', TEAM)
    assert.equal(sentTo(daemon, 'groupId', TEAM)[0]!.params.message, 'Answer to: hello team')
    await sleep(200)
    assert.equal(sentTo(daemon, 'groupId', OTHER_GROUP).length, 0)
    assert.ok(!modelPrompts(model).includes('in the other group'))
  })

  await t.test('Note to Self is answered once; the echo of the answer is dropped', async () => {
    daemon.push(ownSent('note to self: water the plants'))
    await waitSent('recipient', ACCOUNT)
    await agent.waitFor(/ignored a Signal envelope from \+155\*\*\*\*0001: the echo of a message we sent/, 10_000)
    await sleep(200)
    assert.equal(sentTo(daemon, 'recipient', ACCOUNT).length, 1)
    assert.equal(modelPrompts(model).filter((p) => p.includes('water the plants')).length, 1)
  })

  await t.test('a group message the owner wrote on a linked device is answered in the group', async () => {
    daemon.push(ownSent('from my phone: plan the offsite', { groupId: TEAM }))
    await waitSent('groupId', TEAM, 2)
    assert.equal(sentTo(daemon, 'groupId', TEAM)[1]!.params.message, 'Answer to: from my phone: plan the offsite')
  })

  await t.test('the stream drops: it reconnects (resuming after the last event) and answers the next DM', async () => {
    const before = daemon.connections.length
    daemon.dropStreams()
    await until(() => daemon.connections.length > before && daemon.openStreams() === 1, 10_000, () => agent.stderr().slice(-2000))
    assert.ok(daemon.connections.at(-1)!.lastEventId, 'Last-Event-ID sent')
    daemon.push(dm(ALICE, 'are you back?'))
    await waitSent('recipient', ALICE, 2)
    assert.match(agent.stderr(), /the Signal event stream dropped/)
    // Nothing before the drop was answered twice.
    assert.equal(modelPrompts(model).filter((p) => p === 'What is the capital of France?').length, 1)
  })

  await t.test('SIGINT exits 0; no phone number in the output', async () => {
    assert.equal(await agent.stop('SIGINT'), 0)
    const output = agent.stderr() + agent.stdout()
    for (const number of [ALICE, BOB, MALLORY, ACCOUNT]) assert.ok(!output.includes(number), `${number} appears in the output`)
    assert.doesNotMatch(output, /\n\s+at /, 'no stack traces')
  })
})

for (const [label, list, expected] of [
  ['`*` opens every group', '*', ['hello team', 'in the other group']],
  ['unset disables groups', undefined, []],
] as const) {
  test(`SIGNAL_GROUP_ALLOWED_USERS ${label}`, async (t) => {
    const { daemon, model } = await peers(t)
    const agent = startAgent(['gateway', 'run'], { home: home(t), env: env(daemon, model, { SIGNAL_GROUP_ALLOWED_USERS: list }) })
    t.after(() => agent.stop('SIGKILL'))
    await agent.waitFor(/gateway running \(adapters: [^)]*signal/, 30_000)
    daemon.push(inGroup(BOB, TEAM, 'hello team'))
    daemon.push(inGroup(BOB, OTHER_GROUP, 'in the other group'))
    daemon.push(dm(ALICE, 'sentinel'))
    await until(() => sentTo(daemon, 'recipient', ALICE).length === 1 && daemon.sends().length >= 1 + expected.length, 20_000, () => agent.stderr().slice(-2000))
    await sleep(200)
    assert.deepEqual(modelPrompts(model).filter((p) => p !== 'sentinel').sort(), [...expected])
    assert.equal(await agent.stop('SIGINT'), 0)
  })
}

test('a daemon answering 404 on /api/v1/check (another REST wrapper): exit 2 with one line saying so', async (t) => {
  const { daemon, model } = await peers(t)
  daemon.checkStatus = 404
  const run = await runAgent(['gateway', 'run'], { home: home(t), timeoutMs: 30_000, env: env(daemon, model) })
  assert.equal(run.code, 2, `stderr: ${run.stderr}`)
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('agent:'))
  assert.equal(lines.length, 1, run.stderr)
  assert.match(lines[0]!, /^agent: adapter "signal" cannot start: SIGNAL_HTTP_URL answers 404 on \/api\/v1\/check: it looks like another Signal REST wrapper .*not signal-cli's own HTTP daemon\. Run `signal-cli -a <number> daemon --http 127\.0\.0\.1:8080`/)
  assert.equal(daemon.checks, 1)
  assert.equal(daemon.connections.length, 0)
})
