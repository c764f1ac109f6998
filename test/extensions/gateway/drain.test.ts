// Graceful drain of chat turns (SIGTERM to `agent gateway run`): a Telegram turn under way when the
// signal comes is finished and answered before the process exits; a message arriving meanwhile is
// not started but kept, and answered once by the next start. One real gateway on SQLite, the
// Telegram adapter against a loopback fake of the Bot API.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { startAgent } from '../../helpers/agent-process.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'
import { tempDir } from '../../helpers/temp.ts'
import { startFakeTelegram, TOKEN, USERS } from '../telegram/fake-telegram.ts'
import { answerFor, lastUser } from '../telegram/harness.ts'

test('SIGTERM finishes the chat turn under way; a message sent meanwhile is answered by the next start', async (t) => {
  const fake = await startFakeTelegram()
  t.after(() => fake.close())
  // The first turn takes 2 s at the model: long enough for the signal to land in the middle of it.
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)), delayMs: lastUser(body).startsWith('slow') ? 2_000 : 0 }) })
  t.after(() => model.close())
  const env = { ...scriptedModelEnv(model), TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_BASE_URL: fake.apiBase, TELEGRAM_ALLOWED_USERS: String(USERS.alice.id), AGENT_NO_RESPAWN: '1' }
  const home = tempDir(t, 'agent-drain-')
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, gateway: { human_delay: { min_ms: 0, max_ms: 0 } }, platforms: { telegram: { extra: { batch_window_ms: 0 } } } }))
  const start = () => {
    const agent = startAgent(['gateway', 'run'], { home, env, logLevel: 'info' })
    t.after(() => agent.stop('SIGKILL'))
    return agent
  }
  const asked = () => model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => lastUser(r.body))

  const first = start()
  await first.waitFor(/gateway running \(adapters: [^)]*telegram/, 30_000)
  fake.message({ from: 'alice', text: 'slow question' })
  assert.ok(await fake.until(() => asked().length === 1, 20_000), 'the turn reached the model')
  const stopped = first.stop('SIGTERM')
  await first.waitFor(/gateway stopping: draining/, 10_000)
  fake.message({ from: 'alice', text: 'sent while draining' })
  assert.equal(await stopped, 0, first.stderr())
  assert.deepEqual(fake.posted(USERS.alice.id), ['answer to: slow question'], 'the turn under way was answered before the exit')
  assert.deepEqual(asked(), ['slow question'], 'nothing new was started while draining')

  const second = start()
  await second.waitFor(/gateway running \(adapters: [^)]*telegram/, 30_000)
  assert.ok(await fake.until(() => fake.posted(USERS.alice.id).length >= 2, 20_000), JSON.stringify(fake.sent))
  await new Promise((r) => setTimeout(r, 500))
  assert.deepEqual(fake.posted(USERS.alice.id), ['answer to: slow question', 'answer to: sent while draining'])
  assert.deepEqual(asked(), ['slow question', 'sent while draining'], 'each message reached the model once')
})
