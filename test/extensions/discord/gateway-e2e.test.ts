// Against a running `agent gateway run` (real runtime, scripted model): the real discord.js client
// logs in to a loopback fake of Discord and answers a DM, a server mention (mention stripped), a long
// answer in balanced parts; unmentioned and strangers' messages run nothing; the slash commands are
// registered; a resumable close resumes the session and the next message is answered; the token
// never reaches the output. A rejected token stops `gateway run` with exit 2 and one line.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { APPLICATION_ID, BOT_ID, CHANNELS, dmChannel, startFakeDiscord, USERS } from './fake-discord.ts'
import { answerFor, lastUser, LONG_MARKER, TOKEN } from './harness.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

function writeConfig(home: string): void {
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, gateway: { human_delay: { min_ms: 0, max_ms: 20 } }, platforms: { discord: { extra: { connect_timeout_seconds: 20 } } } }))
}

const prompts = (model: ScriptedModelServer) => model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => lastUser(r.body))

test('Discord end to end through `agent gateway run`', async (t) => {
  const fake = await startFakeDiscord({ token: TOKEN, heartbeatIntervalMs: 5000 })
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
      DISCORD_BOT_TOKEN: TOKEN,
      DISCORD_API_BASE_URL: fake.apiBase,
      DISCORD_ALLOWED_USERS: USERS.alice.id,
      DISCORD_GROUP_ALLOWED_USERS: `${USERS.alice.id},${USERS.bob.id}`,
      DISCORD_FREE_RESPONSE_CHANNELS: CHANNELS.free,
    },
  })
  t.after(() => agent.stop('SIGKILL'))
  await agent.waitFor(/gateway running \(adapters: [^)]*discord/, 30_000)
  const posted = async (channel: string, count = 1) => {
    assert.ok(await fake.until(() => fake.posted(channel).length >= count, 20_000), `no answer in ${channel}: ${JSON.stringify(fake.messages)}\nstderr: ${agent.stderr().slice(-3000)}`)
    return fake.posted(channel)
  }

  await t.test('logged in with the intents; the slash commands were registered', async () => {
    assert.equal(fake.identifies().length, 1)
    assert.equal(fake.identifies()[0]!.d.intents, 1 | 512 | 4096 | 32768)
    assert.ok(await fake.until(() => fake.requests.some((r) => r.method === 'PUT' && r.path === `/applications/${APPLICATION_ID}/commands`), 10_000))
    assert.ok(fake.commands.some((c) => c.name === 'new') && fake.commands.some((c) => c.name === 'sethome'))
  })

  await t.test('a DM is answered in the DM channel, after typing', async () => {
    fake.message({ from: 'alice', content: 'What is the capital of France?' })
    assert.deepEqual(await posted(dmChannel('alice')), ['answer to: What is the capital of France?'])
    assert.ok(fake.typing.includes(dmChannel('alice')))
  })

  await t.test('in a server: unmentioned messages and strangers run nothing; a mention is answered, stripped', async () => {
    const before = prompts(model).length
    fake.message({ from: 'bob', channel: 'general', content: 'humans talking' })
    fake.message({ from: 'mallory', channel: 'general', content: `<@${BOT_ID}> let me in`, mentions: ['bot'] })
    fake.message({ from: 'mallory', content: 'and in DM' })
    fake.message({ from: 'bob', channel: 'general', content: `<@${BOT_ID}> summarise the thread`, mentions: ['bot'] })
    assert.deepEqual(await posted(CHANNELS.general), ['answer to: summarise the thread'])
    fake.message({ from: 'bob', channel: 'free', content: 'free channel, no mention' })
    assert.deepEqual(await posted(CHANNELS.free), ['answer to: free channel, no mention'])
    await sleep(300)
    assert.deepEqual(prompts(model).slice(before), ['summarise the thread', 'free channel, no mention'])
    assert.equal(fake.posted(dmChannel('mallory')).length, 0)
  })

  await t.test('a long answer arrives in parts under 2000 characters with balanced fences', async () => {
    fake.message({ from: 'alice', content: `write the ${LONG_MARKER}` })
    await posted(dmChannel('alice'), 4)
    await sleep(500)
    const parts = fake.posted(dmChannel('alice')).slice(1)
    assert.ok(parts.length >= 3)
    for (const part of parts) {
      assert.ok(part.length <= 2000)
      assert.equal((part.match(/^```/gm) ?? []).length % 2, 0)
    }
    assert.ok(parts.at(-1)!.endsWith('The end.'))
  })

  await t.test('a resumable close: the session is resumed and the next message answered', async () => {
    const already = fake.posted(dmChannel('alice')).length
    fake.closeSocket(4000, 'Unknown error')
    assert.ok(await fake.until(() => fake.resumes().length === 1, 15_000), `no RESUME; stderr: ${agent.stderr().slice(-2000)}`)
    assert.equal(fake.identifies().length, 1)
    fake.message({ from: 'alice', content: 'are you back?' })
    const all = await posted(dmChannel('alice'), already + 1)
    assert.equal(all.at(-1), 'answer to: are you back?')
    assert.match(agent.stderr(), /\[discord\] the Discord gateway connection resumed/)
  })

  await t.test('SIGINT stops it cleanly; the token never reaches the output, even at debug level', async () => {
    assert.equal(await agent.stop('SIGINT'), 0)
    const output = agent.stderr() + agent.stdout()
    assert.match(output, /\[discord\] connected to Discord as agentbot/)
    assert.ok(!output.includes(TOKEN), 'the token appears in the output')
    assert.doesNotMatch(output, /\n\s+at /, 'no stack traces')
  })
})

test('a rejected token: `agent gateway run` exits 2 with one line, no retry loop, no token', async (t) => {
  const fake = await startFakeDiscord({ token: 'the-token-discord-knows-000000000000' })
  t.after(() => fake.close())
  const model = await startScriptedModel()
  t.after(() => model.close())
  const home = tempDir(t)
  writeConfig(home)
  const run = await runAgent(['gateway', 'run'], {
    home,
    timeoutMs: 30_000,
    env: { ...scriptedModelEnv(model), DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_BASE_URL: fake.apiBase },
  })
  assert.equal(run.code, 2, `stderr: ${run.stderr}`)
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('agent:'))
  assert.deepEqual(lines, ['agent: adapter "discord" cannot start: Discord rejected DISCORD_BOT_TOKEN (HTTP 401 Unauthorized): reset the token in the Developer Portal (Bot → Reset Token) and update DISCORD_BOT_TOKEN'])
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  assert.ok(!(run.stderr + run.stdout).includes(TOKEN))
  assert.deepEqual(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`), ['GET /gateway/bot 401'], 'one attempt, no retry loop')
  assert.equal(fake.upgradeAttempts(), 0)
})
