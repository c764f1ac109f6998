// `agent gateway run` killed with SIGKILL mid-answer and started again on the same home (the real
// matrix-js-sdk against the loopback fake homeserver, a scripted model): a turn cut off while the
// model was answering runs again and is answered once; a reply that was queued but not yet sent
// (the homeserver rate-limited it) is sent once after the restart; a message sent while the gateway
// was down is answered from the persisted sync token; nothing is answered twice.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { lastUser, startScriptedModel } from '../../../sdk/testing/index.ts'
import { gatewayRestarts } from '../../helpers/gateway-restarts.ts'
import { tempDir } from '../../helpers/temp.ts'
import { startFakeHomeserver } from './fake-homeserver.ts'
import { ALICE } from './harness.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

test('SIGKILL mid-answer: after the restart every answer is delivered exactly once', async (t) => {
  const hs = await startFakeHomeserver({ maxPollMs: 1000 })
  t.after(() => hs.close())
  // "slow" prompts take long enough to be killed in the middle of.
  const model = await startScriptedModel({ respond: (body) => ({ text: `Answer to: ${lastUser(body)}`, ...(lastUser(body).includes('slow') ? { delayMs: 4000 } : {}) }) })
  t.after(() => model.close())
  const dm = hs.createRoom({ members: [{ id: ALICE, name: 'Alice' }] })
  const home = tempDir(t)
  writeFileSync(
    join(home, 'config.yaml'),
    YAML.stringify({
      _config_version: 10,
      platforms: { matrix: { enabled: true, extra: { sync_timeout_ms: 1000 } } },
      gateway: { reconnect: { initial_ms: 200, max_ms: 1000 }, human_delay: { min_ms: 1, max_ms: 5 } },
    }),
  )
  const env = {
    MATRIX_HOMESERVER: hs.url,
    MATRIX_ACCESS_TOKEN: hs.token,
    MATRIX_ALLOWED_USERS: ALICE,
    ...scriptedModelEnv(model),
    // The gateway in the spawned process itself (no respawn with V8 flags): SIGKILL reaches it.
    AGENT_NO_RESPAWN: '1',
  }
  const { start, log } = gatewayRestarts(t, { home, env, adapter: 'matrix' })
  const answers = (prompt: string) => hs.sentTo(dm).filter((s) => s.content.body === `Answer to: ${prompt}`).length
  const asked = (prompt: string) => model.requests.filter((r) => r.path.endsWith('/chat/completions') && lastUser(r.body) === prompt).length

  let agent = await start()
  hs.message(dm, ALICE, 'warm up')
  assert.ok(await hs.until(() => answers('warm up') === 1, 20_000), log())

  // 1. Killed while the model is answering: the turn runs again after the restart.
  hs.message(dm, ALICE, 'a slow question')
  assert.ok(await hs.until(() => asked('a slow question') === 1, 20_000), log())
  assert.equal(await agent.stop('SIGKILL'), null)
  assert.equal(answers('a slow question'), 0, JSON.stringify({ sent: hs.sentTo(dm).map((s) => s.content.body), asked: model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => [lastUser(r.body), r.body.stream]) }) + log())
  // 2. Sent while the gateway is down.
  hs.message(dm, ALICE, 'while you were down')
  agent = await start()
  assert.ok(await hs.until(() => answers('a slow question') === 1 && answers('while you were down') === 1, 30_000), log())
  assert.match(agent.stderr(), /answering 1 message\(s\) left unanswered by the last run/)

  // 3. Killed while the answer waits in the outbox (the homeserver rate-limits the send for 10 s).
  hs.rateLimit('send', 1, 10_000)
  hs.message(dm, ALICE, 'rate limited')
  assert.ok(await hs.until(() => hs.requests.some((r) => r.status === 429), 20_000), log())
  assert.equal(await agent.stop('SIGKILL'), null)
  assert.equal(answers('rate limited'), 0)
  agent = await start()
  assert.ok(await hs.until(() => answers('rate limited') === 1, 30_000), log())

  // Nothing twice: every answer once, every prompt answered after a restart asked again at most once.
  hs.message(dm, ALICE, 'last one')
  assert.ok(await hs.until(() => answers('last one') === 1, 20_000), log())
  await sleep(1000)
  for (const prompt of ['warm up', 'a slow question', 'while you were down', 'rate limited', 'last one']) assert.equal(answers(prompt), 1, `${prompt}: ${JSON.stringify(hs.sentTo(dm).map((s) => s.content.body))}`)
  assert.equal(asked('rate limited'), 1, 'a queued answer is sent, not asked again')
  assert.equal(hs.sentTo(dm).length, 5)
  assert.equal(await agent.stop('SIGINT'), 0)
})
