// Against a running `agent gateway run` (real runtime, scripted model, real gateway lifecycle): the
// real matrix-js-sdk syncs with a loopback fake homeserver and answers a DM with body and HTML, shows
// typing, ignores strangers and unmentioned group messages, answers a mention, joins an allowed
// user's invite, sends a long answer in parts, recovers from failing /sync and answers the next
// message, and exits promptly on SIGINT; a bad token makes `gateway run` exit 2 with one line.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { lastUser, modelPrompts, startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { BOT_ID, startFakeHomeserver, type FakeHomeserver } from './fake-homeserver.ts'
import { ALICE, BOB, MALLORY } from './harness.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

const LONG_MARKER = 'long report'

function answerFor(prompt: string): string {
  if (prompt.includes(LONG_MARKER)) return `# Report\n\n${Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\n${'A sentence of the report with *emphasis*. '.repeat(10)}`).join('\n\n')}`
  return `**Answer** to: ${prompt}`
}

function home(t: TestContext): string {
  const dir = tempDir(t)
  writeFileSync(
    join(dir, 'config.yaml'),
    YAML.stringify({
      _config_version: 10,
      platforms: { matrix: { enabled: true, extra: { sync_timeout_ms: 2000 } } },
      gateway: { reconnect: { initial_ms: 200, max_ms: 1000 }, human_delay: { min_ms: 10, max_ms: 30 } },
    }),
  )
  return dir
}

function env(hs: FakeHomeserver, model: ScriptedModelServer, token = hs.token): Record<string, string> {
  return {
    MATRIX_HOMESERVER: hs.url,
    MATRIX_ACCESS_TOKEN: token,
    MATRIX_ALLOWED_USERS: ALICE,
    MATRIX_GROUP_ALLOWED_USERS: `${ALICE},${BOB}`,
    ...scriptedModelEnv(model),
  }
}

test('Matrix end to end through `agent gateway run`', async (t) => {
  const hs = await startFakeHomeserver()
  t.after(() => hs.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)) }) })
  t.after(() => model.close())
  const dm = hs.createRoom({ members: [{ id: ALICE, name: 'Alice' }] })
  const group = hs.createRoom({ members: [ALICE, BOB, MALLORY], name: 'Team' })
  hs.message(dm, ALICE, 'an old question from yesterday', { ts: Date.now() - 86_400_000 })
  const agent = startAgent(['gateway', 'run'], { home: home(t), logLevel: 'debug', env: env(hs, model) })
  t.after(() => agent.stop('SIGKILL'))
  await agent.waitFor(/gateway running \(adapters: [^)]*matrix/, 30_000)
  const waitSent = async (room: string, count = 1, ms = 20_000) => assert.ok(await hs.until(() => hs.sentTo(room).length >= count, ms), `no answer in ${room}\nstderr: ${agent.stderr().slice(-3000)}`)

  await t.test('the SDK synced with a small initial sync; history is not answered', async () => {
    const initial = hs.syncs()[0]!
    assert.equal(JSON.parse(initial.query.get('filter')!).room.timeline.limit, 1)
    assert.equal(initial.query.has('since'), false)
    assert.match(agent.stderr(), /\[matrix\].*connected to 127\.0\.0\.1:\d+ as @agent:fake\.test \(2 rooms\)/)
    await sleep(300)
    assert.deepEqual(modelPrompts(model), [])
  })

  await t.test('a DM from an allowed user: typing, then the answer with body and formatted_body', async () => {
    hs.message(dm, ALICE, 'What is the capital of France?')
    await waitSent(dm)
    const answer = hs.sentTo(dm)[0]!.content
    assert.equal(answer.body, '**Answer** to: What is the capital of France?')
    assert.equal(answer.formatted_body, '<strong>Answer</strong> to: What is the capital of France?')
    assert.equal(answer.format, 'org.matrix.custom.html')
    assert.ok(hs.typing.some((x) => x.roomId === dm && x.typing && x.userId === BOT_ID))
    assert.deepEqual(modelPrompts(model), ['What is the capital of France?'])
  })

  await t.test('strangers and unmentioned group messages run nothing; a mention is answered in the group', async () => {
    const before = modelPrompts(model).length
    const strangerDm = hs.createRoom({ members: [MALLORY] })
    hs.message(strangerDm, MALLORY, 'let me in')
    hs.message(group, MALLORY, `${BOT_ID} me too`)
    hs.message(group, BOB, 'just chatting among humans')
    hs.message(group, BOB, { msgtype: 'm.text', body: 'Agent Smith: summarise the day', 'm.mentions': { user_ids: [BOT_ID] } })
    await waitSent(group)
    await sleep(500)
    assert.deepEqual(modelPrompts(model).slice(before), ['summarise the day'])
    assert.equal(hs.sentTo(group).length, 1)
    assert.equal(hs.sentTo(strangerDm).length, 0)
  })

  await t.test('an invite from an allowed user is accepted, a stranger\'s is not', async () => {
    const invited = hs.invite(ALICE, { isDirect: true })
    const refused = hs.invite(MALLORY, { isDirect: true })
    assert.ok(await hs.until(() => hs.joins.includes(invited), 10_000), agent.stderr().slice(-2000))
    await sleep(300)
    assert.ok(!hs.joins.includes(refused))
    hs.message(invited, ALICE, 'hello in the new room')
    await waitSent(invited)
  })

  await t.test('a long answer arrives in parts', async () => {
    hs.message(dm, ALICE, `write the ${LONG_MARKER}`)
    await waitSent(dm, 3)
    await sleep(300)
    const parts = hs.sentTo(dm).slice(1).map((s) => s.content)
    assert.ok(parts.length >= 2)
    for (const part of parts) assert.ok(part.body.length <= 4000 && part.formatted_body.includes('<em>emphasis</em>'))
    const joined = parts.map((p) => p.body).join('\n')
    for (const i of [0, 20, 39]) assert.match(joined, new RegExp(`## Part ${i}\\n`))
  })

  await t.test('/sync fails with 500s, then is back: the SDK recovers and the next message is answered', async () => {
    const count = hs.sentTo(dm).length
    hs.failSyncs(2, 500)
    hs.message(dm, ALICE, 'ping during the outage')
    await waitSent(dm, count + 1, 40_000)
    hs.message(dm, ALICE, 'are you back?')
    await waitSent(dm, count + 2)
    assert.equal(hs.sentTo(dm).at(-1)!.content.body, '**Answer** to: are you back?')
    // The SDK reports SYNCING again only after a sync that follows its catch-up: by now it has.
    await agent.waitFor(/Matrix sync recovered/, 30_000)
    assert.match(agent.stderr(), /Matrix sync interrupted \(HTTP 500 M_UNKNOWN: Internal server error\); the SDK retries/)
  })

  await t.test('SIGINT stops it promptly with exit 0; the token never reaches the output; no SDK console noise', async () => {
    const started = Date.now()
    assert.equal(await agent.stop('SIGINT'), 0)
    assert.ok(Date.now() - started < 8000, `the gateway took ${Date.now() - started} ms to exit`)
    const output = agent.stderr() + agent.stdout()
    assert.ok(!output.includes(hs.token), 'the access token appears in the output')
    assert.equal(agent.stdout().trim(), '', 'nothing on stdout')
    assert.doesNotMatch(output, /\n\s+at /, 'no stack traces')
  })
})

test('a bad token: `agent gateway run` exits 2 with one line, no retry loop, no token', async (t) => {
  const hs = await startFakeHomeserver()
  t.after(() => hs.close())
  const model = await startScriptedModel()
  t.after(() => model.close())
  const token = 'syt_bad_token_for_gateway_run_42'
  const run = await runAgent(['gateway', 'run'], { home: home(t), timeoutMs: 30_000, env: env(hs, model, token) })
  assert.equal(run.code, 2, `stderr: ${run.stderr}`)
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('agent:'))
  assert.deepEqual(lines, [`agent: adapter "matrix" cannot start: the Matrix homeserver (${new URL(hs.url).host}) refused MATRIX_ACCESS_TOKEN (HTTP 401 M_UNKNOWN_TOKEN: Invalid access token passed.)`])
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  assert.ok(!(run.stderr + run.stdout).includes(token))
  assert.equal(hs.requests.filter((r) => r.path.endsWith('/account/whoami')).length, 1, 'one attempt')
  assert.equal(hs.syncs().length, 0)
})
