// Two real `agent gateway run` processes (each its own AGENT_HOME) on one PostgreSQL database, the
// Telegram adapter against a loopback fake of the Bot API: only the instance holding the adapter's
// lease polls (the other is on standby), and when that instance is killed (SIGKILL, no drain) the
// other takes the adapter over within 10 s, resumes from the shared cursor and answers what arrives,
// with nothing answered twice.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { backendSkip, startScriptedModel, testStorage } from '../../../sdk/testing/index.ts'
import { startAgent } from '../../helpers/agent-process.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'
import { tempDir } from '../../helpers/temp.ts'
import { startFakeTelegram, TOKEN, USERS } from '../telegram/fake-telegram.ts'
import { answerFor, lastUser } from '../telegram/harness.ts'

test('killing the instance holding the Telegram lease moves the adapter to the other within 10 s', { skip: backendSkip('postgres') }, async (t) => {
  const storage = await testStorage(t, 'postgres')
  const fake = await startFakeTelegram()
  t.after(() => fake.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)) }) })
  t.after(() => model.close())
  const env = {
    ...scriptedModelEnv(model),
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_BASE_URL: fake.apiBase,
    TELEGRAM_ALLOWED_USERS: String(USERS.alice.id),
    // SIGKILL reaches the gateway itself, not a respawning parent.
    AGENT_NO_RESPAWN: '1',
  }
  const instance = (name: string) => {
    const home = tempDir(t, `agent-instance-${name}-`)
    const config = { _config_version: 10, ...storage.config, gateway: { human_delay: { min_ms: 0, max_ms: 20 } }, platforms: { telegram: { extra: { batch_window_ms: 0 } } } }
    writeFileSync(join(home, 'config.yaml'), YAML.stringify(config))
    const agent = startAgent(['gateway', 'run'], { home, env, logLevel: 'info' })
    t.after(() => agent.stop('SIGKILL'))
    return agent
  }
  const answers = () => fake.posted(USERS.alice.id)
  const answered = async (count: number, what: string) => assert.ok(await fake.until(() => answers().length >= count, 20_000), `${what}: ${JSON.stringify(fake.sent)}`)

  const a = instance('a')
  await a.waitFor(/gateway running \(adapters: [^)]*telegram/, 30_000)
  const b = instance('b')
  await b.waitFor(/gateway running \(adapters: [^)]*on standby: telegram/, 30_000)

  fake.message({ from: 'alice', text: 'first, to whoever polls' })
  await answered(1, 'the holder answers')
  // Past the answer: the holder saved its resume point, and only it polls.
  await new Promise((r) => setTimeout(r, 500))
  assert.ok(!/adapter "telegram" started/.test(b.stderr()), 'the standby instance never started the adapter')

  const killedAt = Date.now()
  await a.stop('SIGKILL')
  fake.message({ from: 'alice', text: 'second, sent as the holder died' })
  await b.waitFor(/adapter "telegram" started/, 15_000)
  const movedMs = Date.now() - killedAt
  assert.ok(movedMs <= 10_000, `taken over in ${movedMs} ms`)
  assert.match(b.stderr(), /adapter "telegram": took over its lease; starting/)

  await answered(2, 'the second instance answers after the kill')
  fake.message({ from: 'alice', text: 'third, to the new holder' })
  await answered(3, 'and keeps answering')
  // Nothing twice: each message reached the model once and got one answer.
  await new Promise((r) => setTimeout(r, 500))
  assert.deepEqual(answers(), ['answer to: first, to whoever polls', 'answer to: second, sent as the holder died', 'answer to: third, to the new holder'])
  const prompts = model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => lastUser(r.body))
  assert.deepEqual(prompts, ['first, to whoever polls', 'second, sent as the holder died', 'third, to the new holder'])
  t.diagnostic(`adapter moved ${movedMs} ms after the SIGKILL`)
})
