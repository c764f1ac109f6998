// `agent gateway run` killed with SIGKILL mid-answer and started again on the same home (real
// discord.js against the loopback fake of Discord, a scripted model): the turn cut off while the
// model was answering runs again and is answered once; a DM sent while the gateway was down is read
// back from the channel's history; nothing is answered twice.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { gatewayRestarts } from '../../helpers/gateway-restarts.ts'
import { tempDir } from '../../helpers/temp.ts'
import { dmChannel, startFakeDiscord, USERS } from './fake-discord.ts'
import { lastUser, TOKEN } from './harness.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

test('SIGKILL mid-answer: after the restart every DM is answered exactly once', async (t) => {
  const fake = await startFakeDiscord({ token: TOKEN, heartbeatIntervalMs: 5000 })
  t.after(() => fake.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: `Answer to: ${lastUser(body)}`, ...(lastUser(body).includes('slow') ? { delayMs: 4000 } : {}) }) })
  t.after(() => model.close())
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, gateway: { human_delay: { min_ms: 0, max_ms: 5 } }, platforms: { discord: { extra: { connect_timeout_seconds: 20, slash_commands: false } } } }))
  const env = {
    ...scriptedModelEnv(model),
    DISCORD_BOT_TOKEN: TOKEN,
    DISCORD_API_BASE_URL: fake.apiBase,
    DISCORD_ALLOWED_USERS: USERS.alice.id,
    // The gateway in the spawned process itself (no respawn with V8 flags): SIGKILL reaches it.
    AGENT_NO_RESPAWN: '1',
  }
  const { start, log } = gatewayRestarts(t, { home, env, adapter: 'discord' })
  const dm = dmChannel('alice')
  const answers = (prompt: string) => fake.posted(dm).filter((p) => p === `Answer to: ${prompt}`).length
  const asked = (prompt: string) => model.requests.filter((r) => r.path.endsWith('/chat/completions') && lastUser(r.body) === prompt).length

  let agent = await start()
  fake.message({ from: 'alice', content: 'warm up' })
  assert.ok(await fake.until(() => answers('warm up') === 1, 20_000), log())

  fake.message({ from: 'alice', content: 'a slow question' })
  assert.ok(await fake.until(() => asked('a slow question') === 1, 20_000), log())
  assert.equal(await agent.stop('SIGKILL'), null)
  assert.equal(answers('a slow question'), 0)
  fake.message({ from: 'alice', content: 'while you were down' })

  agent = await start()
  assert.ok(await fake.until(() => answers('a slow question') === 1 && answers('while you were down') === 1, 30_000), `${JSON.stringify(fake.posted(dm))}\n${log()}`)
  fake.message({ from: 'alice', content: 'last one' })
  assert.ok(await fake.until(() => answers('last one') === 1, 20_000), log())
  await sleep(1000)
  // In the order they were sent: the prompt the killed run left goes ahead of the backlog.
  assert.deepEqual(fake.posted(dm), ['Answer to: warm up', 'Answer to: a slow question', 'Answer to: while you were down', 'Answer to: last one'])
  for (const prompt of ['warm up', 'a slow question', 'while you were down', 'last one']) assert.equal(answers(prompt), 1, prompt)
  assert.equal(fake.posted(dm).length, 4)
  assert.equal(await agent.stop('SIGINT'), 0)
})
