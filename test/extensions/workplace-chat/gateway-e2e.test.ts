// Against a running `agent gateway run` (real runtime, scripted model): the real dingtalk-stream SDK
// connects to a loopback fake of DingTalk Stream and answers robot messages with markdown at their
// session webhooks: direct text, a group mention, rich text, long answers in parts; a duplicate runs
// once, strangers and unmentioned group messages run nothing; the stream reconnects with backoff
// after a drop and the next message is answered; bad credentials stop `gateway run` with one line.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { lastUser, startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { runAgent, startAgent, type RunningAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { robotMessage, startFakeDingTalk, type FakeDingTalk } from './fake-dingtalk.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

const CLIENT_ID = 'dingappkey00000042'
const SECRET = 'dt-e2e-secret-9f8e7d6c5b4a3210'
const LONG_MARKER = 'long report'

function userTexts(model: ScriptedModelServer): string[] {
  return model.requests
    .filter((r) => r.path.endsWith('/chat/completions'))
    .map((r) => {
      const users = (r.body?.messages ?? []).filter((m: any) => m.role === 'user')
      const last = users.at(-1)?.content
      return typeof last === 'string' ? last : JSON.stringify(last)
    })
}

function answerFor(prompt: string): string {
  if (prompt.includes(LONG_MARKER)) {
    const sections = Array.from({ length: 30 }, (_, i) => `## Section ${i}\n\n${`Paragraph ${i} of the report, with **bold** words and a list:\n- item a\n- item b\n`.repeat(4)}`)
    return `# Quarterly report\n\n${sections.join('\n')}\n\`\`\`sh\necho done\n\`\`\``
  }
  return `**Answer** to: ${prompt}`
}

function writeConfig(home: string, extra: Record<string, unknown> = {}): void {
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, platforms: { dingtalk: { enabled: true, extra: { reconnect_initial_ms: 300, reconnect_max_ms: 3000, ...extra } } } }))
}

async function startDingTalkGateway(t: TestContext): Promise<{ fake: FakeDingTalk; model: ScriptedModelServer; agent: RunningAgent; calls(): number }> {
  const fake = await startFakeDingTalk({ clientId: CLIENT_ID, clientSecret: SECRET })
  t.after(() => fake.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)) }) })
  t.after(() => model.close())
  const home = tempDir(t)
  writeConfig(home)
  const agent = startAgent(['gateway', 'run'], {
    home,
    logLevel: 'debug',
    env: {
      ...scriptedModelEnv(model),
      DINGTALK_CLIENT_ID: CLIENT_ID,
      DINGTALK_CLIENT_SECRET: SECRET,
      DINGTALK_GATEWAY_URL: fake.gatewayUrl,
      DINGTALK_API_BASE_URL: fake.origin,
      DINGTALK_ALLOWED_USERS: 'staff-alice',
      DINGTALK_GROUP_ALLOWED_USERS: 'staff-alice,staff-bob',
    },
  })
  t.after(() => agent.stop('SIGKILL'))
  await agent.waitFor(/gateway running \(adapters: [^)]*dingtalk/, 30_000)
  return { fake, model, agent, calls: () => model.requests.filter((r) => r.path.endsWith('/chat/completions')).length }
}

test('DingTalk Stream end to end through `agent gateway run`', async (t) => {
  const { fake, model, agent, calls } = await startDingTalkGateway(t)
  const replyTo = (session: string) => fake.replies.filter((r) => r.session === session)
  const waitReply = async (session: string, count = 1) => assert.ok(await fake.until(() => replyTo(session).length >= count, 20_000), `no reply at ${session}; replies: ${JSON.stringify(fake.replies.map((r) => r.session))}\nstderr: ${agent.stderr().slice(-3000)}`)

  await t.test('the SDK opened the stream with the app credentials and the robot subscription, and answers pings', async () => {
    assert.equal(fake.opens.length, 1)
    const body = fake.opens[0]!.body
    assert.equal(body.clientId, CLIENT_ID)
    assert.equal(body.clientSecret, SECRET)
    assert.deepEqual(body.subscriptions, [{ type: 'CALLBACK', topic: '/v1.0/im/bot/messages/get' }])
    const ping = fake.ping()
    assert.ok(await fake.until(() => fake.frames.some((f) => f.headers?.messageId === ping && f.headers?.topic === 'ping' && f.code === 200), 5000))
  })

  await t.test('a direct text message gets a markdown answer at its session webhook; the callback is acked', async () => {
    const frame = fake.push(robotMessage(fake, { text: 'What is the capital of France?', session: 'dm-1' }))
    await waitReply('dm-1')
    assert.ok(fake.frames.some((f) => f.headers?.messageId === frame && f.code === 200 && f.message === 'OK'), 'the callback frame was acknowledged')
    const reply = replyTo('dm-1')[0]!.body
    assert.equal(reply.msgtype, 'markdown')
    assert.equal(reply.markdown.text, '**Answer** to: What is the capital of France?')
    assert.equal(reply.markdown.title, 'Answer to: What is the capital of Franc…', 'the first line without markup, cut to 40 characters')
    assert.ok(userTexts(model).includes('What is the capital of France?'))
  })

  await t.test('a group message mentioning the robot is answered in the group; one without a mention is not', async () => {
    const before = calls()
    fake.push(robotMessage(fake, { group: true, mention: false, staffId: 'staff-bob', nick: 'Bob', text: 'just chatting among humans', session: 'group-quiet' }))
    fake.push(robotMessage(fake, { group: true, staffId: 'staff-bob', nick: 'Bob', text: ' summarise the thread', session: 'group-1' }))
    await waitReply('group-1')
    assert.equal(replyTo('group-1')[0]!.body.markdown.text, '**Answer** to: summarise the thread')
    await sleep(300)
    assert.equal(replyTo('group-quiet').length, 0)
    assert.equal(calls(), before + 1)
    assert.ok(!userTexts(model).some((u) => u.includes('just chatting')))
  })

  await t.test('rich text is read: text parts in order, the picture described', async () => {
    fake.push(robotMessage(fake, { session: 'rich-1', richText: [{ text: 'Compare ' }, { text: 'these two' }, { type: 'picture', downloadCode: 'dlc-1', pictureDownloadCode: 'pdc-1' }, { text: '\nplans, please' }] }))
    await waitReply('rich-1')
    assert.ok(userTexts(model).includes('Compare these two [image] \nplans, please'), JSON.stringify(userTexts(model).slice(-2)))
  })

  await t.test('a message delivered twice (same msgId) gets one run and one answer', async () => {
    const before = calls()
    const message = robotMessage(fake, { text: 'count me once', session: 'dup-1' })
    const frames = [fake.push(message), fake.push(message)]
    await waitReply('dup-1')
    await sleep(500)
    assert.equal(calls(), before + 1)
    assert.equal(replyTo('dup-1').length, 1)
    for (const frame of frames) assert.ok(fake.frames.some((f) => f.headers?.messageId === frame && f.code === 200), 'both deliveries acked')
  })

  await t.test('a sender outside the allowlist gets no run and no answer', async () => {
    const before = calls()
    fake.push(robotMessage(fake, { text: 'let me in', staffId: 'staff-mallory', nick: 'Mallory', session: 'stranger' }))
    fake.push(robotMessage(fake, { group: true, staffId: 'staff-mallory', nick: 'Mallory', text: 'me too', session: 'stranger-group' }))
    await sleep(800)
    assert.equal(calls(), before)
    assert.equal(replyTo('stranger').length + replyTo('stranger-group').length, 0)
  })

  await t.test('a long answer arrives as numbered markdown parts within the size limit', async () => {
    fake.push(robotMessage(fake, { text: `write the ${LONG_MARKER}`, session: 'long-1' }))
    await waitReply('long-1', 2)
    await sleep(300)
    const parts = replyTo('long-1').map((r) => r.body.markdown)
    assert.ok(parts.length >= 2)
    parts.forEach((p, i) => {
      assert.ok(p.text.length <= 5000, `part ${i} has ${p.text.length} characters`)
      assert.equal(p.title, `Quarterly report (${i + 1}/${parts.length})`)
    })
    const joined = parts.map((p) => p.text).join('\n')
    for (const section of [0, 15, 29]) assert.match(joined, new RegExp(`## Section ${section}\\n`))
    assert.match(parts.at(-1)!.text, /```sh\necho done\n```$/)
  })

  await t.test('the fake drops the stream: the client reconnects with backoff, and the next message is answered', async () => {
    const opened = fake.opens.length
    fake.failOpens(1, 503)
    fake.drop()
    // The fake counts the websocket when it accepts the upgrade; the client logs "reconnected" only
    // after its own open event, and that line still has to cross the stderr pipe: wait for both.
    const reconnected = /DingTalk stream reconnected after \d+ attempt/
    assert.ok(await fake.until(() => fake.connections() === 2 && reconnected.test(agent.stderr()), 15_000), `no reconnect; stderr: ${agent.stderr().slice(-2000)}`)
    assert.deepEqual(fake.opens.slice(opened).map((o) => o.status), [503, 200])
    const log = agent.stderr()
    assert.match(log, /DingTalk stream down \(the connection closed\); reconnecting in [\d.]+ s \(attempt 1\)/)
    assert.match(log, /DingTalk stream down \(the DingTalk stream gateway \(127\.0\.0\.1:\d+\) answered HTTP 503\); reconnecting in [\d.]+ s \(attempt 2\)/)
    assert.match(log, /DingTalk stream reconnected after 2 attempt\(s\)/)
    fake.push(robotMessage(fake, { text: 'are you back?', session: 'after-drop' }))
    await waitReply('after-drop')
    assert.equal(replyTo('after-drop')[0]!.body.markdown.text, '**Answer** to: are you back?')
  })

  await t.test('the client secret never reaches the output, even at debug level; no SDK console noise', async () => {
    assert.equal(await agent.stop('SIGINT'), 0)
    const output = agent.stderr() + agent.stdout()
    assert.match(output, /\[dingtalk\]/, 'the adapter logged at debug level')
    assert.ok(!output.includes(SECRET), 'the secret appears in the output')
    assert.doesNotMatch(output, /connect success|^ERROR|\n\s+at /m, 'the SDK\'s console output (and stack traces) stay out')
  })
})

test('bad credentials: `agent gateway run` exits 2 with one line, no retry loop, no secret', async (t) => {
  const fake = await startFakeDingTalk({ clientId: CLIENT_ID, clientSecret: 'the-secret-dingtalk-knows' })
  t.after(() => fake.close())
  const model = await startScriptedModel()
  t.after(() => model.close())
  const home = tempDir(t)
  writeConfig(home)
  const run = await runAgent(['gateway', 'run'], {
    home,
    timeoutMs: 30_000,
    env: { ...scriptedModelEnv(model), DINGTALK_CLIENT_ID: CLIENT_ID, DINGTALK_CLIENT_SECRET: SECRET, DINGTALK_GATEWAY_URL: fake.gatewayUrl, DINGTALK_API_BASE_URL: fake.origin },
  })
  assert.equal(run.code, 2, `stderr: ${run.stderr}`)
  // The command's own line (the gateway also logs the failure at error level).
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('agent:'))
  assert.deepEqual(lines, ['agent: adapter "dingtalk" cannot start: DingTalk refused DINGTALK_CLIENT_ID/DINGTALK_CLIENT_SECRET (HTTP 401 authFailed): check the app\'s client id and client secret'])
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  assert.ok(!(run.stderr + run.stdout).includes(SECRET))
  assert.equal(fake.opens.length, 1, 'one attempt, no retry loop')
  assert.equal(fake.connections(), 0)
})
