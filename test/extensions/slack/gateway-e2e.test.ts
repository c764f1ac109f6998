// Against a running `agent gateway run` (real runtime, scripted model, the official Slack SDK clients)
// and a loopback fake of Slack: a stranger's DM gets a pairing code and runs nothing, then (approved
// with `agent gateway pair approve`) is answered; a channel mention is answered in its thread and an
// unmentioned message ignored; `/agent <subcommand>` runs, `/agent help` lists exactly the gateway
// commands `/help` lists, and a hot reload adding a command adds the subcommand; a long answer
// arrives in valid parts; a refresh request and a dropped socket are recovered, a 429 waited out; a
// cron job's answer reaches the home channel; SIGINT stops it cleanly without a token in the output.
// A refused token exits 2 at once.

import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { BOT_USER, CHANNELS, dmChannel, startFakeSlack, USERS } from './fake-slack.ts'
import { answerFor, APP_TOKEN, BOT_TOKEN, lastUser, LONG_MARKER, modelPrompts } from './harness.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

const extension = (commands: string[]) => `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'pinger', setup(api) {
${commands.map((name) => `  api.commands.register({ name: '${name}', category: 'Test', description: 'Answers ${name}', scope: 'gateway', slash: (ctx) => ctx.reply('${name}: ' + ctx.args) })`).join('\n')}
} })
`

function writeConfig(home: string): void {
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, gateway: { human_delay: { min_ms: 0, max_ms: 20 } }, cron: { timezone: 'UTC', poll_seconds: 1 }, platforms: { slack: { extra: { connect_timeout_seconds: 20 } } } }))
}

const naiveUtc = (instant: number) => new Date(instant).toISOString().slice(0, 19)
/** Names at the start of help lines: `/name` (the gateway's /help) or `` `/agent name `` (the subcommand help). */
const helpNames = (text: string, pattern: RegExp) => [...new Set([...text.matchAll(pattern)].map((m) => m[1]!))].sort()

test('Slack end to end through `agent gateway run`', async (t) => {
  const fake = await startFakeSlack({ botToken: BOT_TOKEN, appToken: APP_TOKEN })
  t.after(() => fake.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)) }) })
  t.after(() => model.close())
  const home = tempDir(t)
  writeConfig(home)
  const pinger = join(home, 'extensions', 'pinger', 'index.ts')
  mkdirSync(join(home, 'extensions', 'pinger'), { recursive: true })
  writeFileSync(pinger, extension(['ping']))
  const env = {
    ...scriptedModelEnv(model),
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_BASE_URL: fake.apiBase,
    SLACK_GROUP_ALLOWED_USERS: `${USERS.alice},${USERS.bob}`,
    SLACK_HOME_CHANNEL: CHANNELS.free,
  }
  const agent = startAgent(['gateway', 'run'], { home, logLevel: 'debug', env })
  t.after(() => agent.stop('SIGKILL'))
  await agent.waitFor(/gateway running \(adapters: [^)]*slack/, 30_000)
  const posted = async (channel: string, count = 1, thread?: string) => {
    assert.ok(await fake.until(() => fake.texts(channel, thread).length >= count, 20_000), `no answer in ${channel}: ${JSON.stringify(fake.posted.map((p) => [p.channel, p.text.slice(0, 60)]))}\nstderr: ${agent.stderr().slice(-3000)}`)
    return fake.texts(channel, thread)
  }
  const privately = async (id: string) => {
    assert.ok(await fake.until(() => fake.responses(id).length > 0, 20_000), `no private answer to ${id}\nstderr: ${agent.stderr().slice(-3000)}`)
    return fake.responses(id).join('\n')
  }

  await t.test('a stranger gets a pairing code in the DM and runs nothing; once approved, the DM is answered', async () => {
    fake.message({ from: 'mallory', text: 'hello, who are you?' })
    const [pairing] = await posted(dmChannel('mallory'))
    const code = /pair approve (\S+)/.exec(pairing!)?.[1]
    assert.ok(code, pairing)
    assert.deepEqual(modelPrompts(model), [])
    const approve = await runAgent(['gateway', 'pair', 'approve', code!], { home, env, logLevel: 'error' })
    assert.equal(approve.code, 0, approve.stderr)
    fake.message({ from: 'mallory', text: 'What is 2+2? (briefly)' })
    assert.deepEqual(await posted(dmChannel('mallory'), 2), [pairing, 'answer to: What is 2+2? (briefly)'])
    assert.equal(fake.posted.at(-1)!.thread_ts, undefined)
    assert.deepEqual(modelPrompts(model), ['What is 2+2? (briefly)'])
  })

  await t.test('in a channel: an unmentioned message is ignored, a mention answered in its thread', async () => {
    fake.message({ from: 'bob', channel: 'general', text: 'humans talking' })
    const ts = fake.message({ from: 'bob', channel: 'general', text: `<@${BOT_USER}> summarise the thread`, appMention: true })
    assert.deepEqual(await posted(CHANNELS.general), ['answer to: summarise the thread'])
    assert.equal(fake.posted.at(-1)!.thread_ts, ts)
    await sleep(300)
    assert.deepEqual(modelPrompts(model).slice(-1), ['summarise the thread'])
    assert.ok(!modelPrompts(model).includes('humans talking'))
  })

  await t.test('/agent help lists the gateway commands /help lists; a subcommand runs; a hot reload adds one', async () => {
    fake.message({ from: 'mallory', text: '/help' })
    const gatewayHelp = (await posted(dmChannel('mallory'), 3)).at(-1)!
    // The gateway's own /help, its commands named as Slack users type them.
    const expected = helpNames(`${gatewayHelp}\n  /agent help`, /^\s*\/agent (\S+)/gm)
    for (const name of ['ping', 'new', 'sethome', 'help']) assert.ok(expected.includes(name), `${name} in ${expected.join(' ')}`)
    const listed = helpNames(await privately(fake.slash({ from: 'bob', channel: 'general', text: 'help' })), /^`\/agent (\S+?)[` ]/gm)
    assert.deepEqual(listed, expected)

    fake.slash({ from: 'bob', channel: 'general', text: 'ping one' })
    assert.equal((await posted(CHANNELS.general, 2)).at(-1), 'ping: one')

    writeFileSync(pinger, extension(['ping', 'pong-now']))
    const reloaded = async () => helpNames(await privately(fake.slash({ from: 'bob', channel: 'general', text: 'help' })), /^`\/agent (\S+?)[` ]/gm)
    const end = Date.now() + 15_000
    let after = await reloaded()
    while (!after.includes('pong-now') && Date.now() < end) {
      await sleep(300)
      after = await reloaded()
    }
    assert.deepEqual(after, [...expected, 'pong-now'].sort(), `not reloaded: ${agent.stderr().slice(-2000)}`)
    fake.slash({ from: 'bob', channel: 'general', text: 'pong-now two' })
    assert.equal((await posted(CHANNELS.general, 3)).at(-1), 'pong-now: two')
  })

  await t.test('a long answer arrives in parts under 4,000 characters with balanced code blocks', async () => {
    const before = fake.texts(dmChannel('mallory')).length
    fake.message({ from: 'mallory', text: `write the ${LONG_MARKER}` })
    await posted(dmChannel('mallory'), before + 3)
    await sleep(500)
    const parts = fake.texts(dmChannel('mallory')).slice(before)
    assert.ok(parts.length >= 3, `${parts.length} parts`)
    for (const part of parts) {
      assert.ok(part.length <= 4000)
      assert.equal((part.match(/^```/gm) ?? []).length % 2, 0)
    }
    const read = parts.join('\n')
    for (let i = 0; i < 150; i++) assert.ok(read.includes(`    print("line ${i} of the program")`), `line ${i} intact`)
    assert.ok(read.startsWith('*Report*'), 'the heading as mrkdwn bold')
    assert.match(read, /Paragraph 0: \*the quick brown fox\*/)
    assert.ok(parts.at(-1)!.endsWith('The end.'))
  })

  await t.test('a refresh request and a dropped socket are recovered; a 429 is waited out', async () => {
    const before = fake.texts(dmChannel('mallory')).length
    fake.disconnect('refresh_requested')
    assert.ok(await fake.until(() => fake.connections() === 2 && fake.isConnected(), 15_000), `no reconnect: ${agent.stderr().slice(-2000)}`)
    fake.drop()
    fake.rateLimit(1)
    fake.message({ from: 'mallory', text: 'are you back?' })
    assert.equal((await posted(dmChannel('mallory'), before + 1)).at(-1), 'answer to: are you back?')
    assert.equal(fake.connections(), 3)
    assert.ok(fake.requests.some((r) => r.method === 'chat.postMessage' && r.outcome === 'HTTP 429'))
    assert.match(agent.stderr(), /\[slack\] Slack asked for a new Socket Mode connection \(refresh_requested\)/)
    assert.match(agent.stderr(), /\[slack\] the Slack Socket Mode connection is back/)
    assert.match(agent.stderr(), /\[slack\] Slack rate limit: retrying in 1 s/)
  })

  await t.test('a cron job due in seconds delivers to the home channel', async () => {
    const add = await runAgent(['cron', 'add', naiveUtc(Date.now() + 4000), 'Write the daily report', '--deliver', 'slack', '--name', 'daily'], { home, env, logLevel: 'error' })
    assert.equal(add.code, 0, add.stderr)
    assert.deepEqual(await posted(CHANNELS.free), ['answer to: Write the daily report'])
  })

  await t.test('SIGINT stops it cleanly; no token reaches the output, even at debug level', async () => {
    assert.equal(await agent.stop('SIGINT'), 0)
    const output = agent.stderr() + agent.stdout()
    assert.match(output, /\[slack\] connected to Slack as agentbot in Test Team \(Socket Mode\)/)
    assert.ok(!output.includes(BOT_TOKEN) && !output.includes(APP_TOKEN), 'a token appears in the output')
    assert.doesNotMatch(output, /\n\s+at /, 'no stack traces')
    assert.equal(fake.isConnected(), false)
  })
})

test('a refused token: `agent gateway run` exits 2 with one line, no retry loop, no token', async (t) => {
  const fake = await startFakeSlack({ botToken: 'xoxb-the-token-slack-knows-0000', appToken: APP_TOKEN })
  t.after(() => fake.close())
  const model = await startScriptedModel()
  t.after(() => model.close())
  const home = tempDir(t)
  writeConfig(home)
  const run = await runAgent(['gateway', 'run'], { home, timeoutMs: 30_000, env: { ...scriptedModelEnv(model), SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN, SLACK_API_BASE_URL: fake.apiBase } })
  assert.equal(run.code, 2, `stderr: ${run.stderr}`)
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('agent:'))
  assert.deepEqual(lines, ['agent: adapter "slack" cannot start: Slack refused SLACK_BOT_TOKEN (invalid_auth): reinstall the app to the workspace (OAuth & Permissions) and copy the Bot User OAuth Token'])
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  assert.ok(!(run.stderr + run.stdout).includes(BOT_TOKEN))
  assert.deepEqual(fake.requests.map((r) => `${r.method} ${r.outcome}`), ['auth.test invalid_auth'], 'one attempt, no retry loop')
  assert.equal(fake.connections(), 0)
})
