// Two real `agent gateway run` processes (each its own AGENT_HOME) on one PostgreSQL database, the
// Telegram adapter against a loopback fake of the Bot API: only the instance holding the adapter's
// lease polls (the other is on standby, as `agent gateway status` says), a drained holder (SIGTERM)
// hands it over at once, and a killed one (SIGKILL, nothing released) is replaced within 10 s; the
// new holder resumes from the shared cursor and answers what arrives, nothing answered twice.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { backendSkip, startScriptedModel, testStorage } from '../../../sdk/testing/index.ts'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'
import { tempDir } from '../../helpers/temp.ts'
import { startFakeTelegram, TOKEN, USERS } from '../telegram/fake-telegram.ts'
import { answerFor, lastUser } from '../telegram/harness.ts'

test('the Telegram adapter runs on one instance; a drained or killed holder hands it to another', { skip: backendSkip('postgres') }, async (t) => {
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
    return { home, agent, waitFor: agent.waitFor }
  }
  const answers = () => fake.posted(USERS.alice.id)
  const answered = async (count: number, what: string) => assert.ok(await fake.until(() => answers().length >= count, 20_000), `${what}: ${JSON.stringify(fake.sent)}`)

  const a = instance('a')
  await a.waitFor(/gateway running \(adapters: [^)]*telegram/, 30_000)
  const b = instance('b')
  await b.waitFor(/gateway running \(adapters: [^)]*on standby: telegram/, 30_000)
  const status = await runAgent(['gateway', 'status'], { home: b.home, env, logLevel: 'error' })
  assert.match(status.stdout, /adapter telegram: standby \(held by [^)]+:\d+:[0-9a-f]+\)/, status.stdout + status.stderr)

  fake.message({ from: 'alice', text: 'first, to whoever polls' })
  await answered(1, 'the holder answers')
  await new Promise((r) => setTimeout(r, 500))
  assert.ok(!/adapter "telegram" started/.test(b.agent.stderr()), 'the standby instance never started the adapter')

  // A graceful stop (SIGTERM: drain) releases the lease: the other instance takes it at its next try.
  const drainedAt = Date.now()
  assert.equal(await a.agent.stop('SIGTERM'), 0)
  await b.agent.waitFor(/adapter "telegram" started/, 10_000)
  const handedMs = Date.now() - drainedAt
  assert.ok(handedMs <= 6_000, `handed over in ${handedMs} ms (at the standby's next try, every 2 s)`)
  fake.message({ from: 'alice', text: 'second, after a drain' })
  await answered(2, 'the second instance answers after the drain')

  // A killed holder (SIGKILL: nothing released) is replaced when its lease expires.
  const c = instance('c')
  await c.waitFor(/gateway running \(adapters: [^)]*on standby: telegram/, 30_000)
  const killedAt = Date.now()
  await b.agent.stop('SIGKILL')
  fake.message({ from: 'alice', text: 'third, sent as the holder died' })
  await c.waitFor(/adapter "telegram" started/, 15_000)
  const movedMs = Date.now() - killedAt
  assert.ok(movedMs <= 10_000, `taken over in ${movedMs} ms`)
  assert.match(c.agent.stderr(), /adapter "telegram": took over its lease; starting/)
  await answered(3, 'the third instance answers after the kill')
  fake.message({ from: 'alice', text: 'fourth, to the new holder' })
  await answered(4, 'and keeps answering')

  // Nothing twice: each message reached the model once and got one answer.
  await new Promise((r) => setTimeout(r, 500))
  const texts = ['first, to whoever polls', 'second, after a drain', 'third, sent as the holder died', 'fourth, to the new holder']
  assert.deepEqual(answers(), texts.map((text) => `answer to: ${text}`))
  assert.deepEqual(model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => lastUser(r.body)), texts)
  t.diagnostic(`adapter handed over ${handedMs} ms after SIGTERM, taken over ${movedMs} ms after SIGKILL`)
})
