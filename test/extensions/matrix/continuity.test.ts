// No Matrix message lost (the real matrix-js-sdk against the loopback fake homeserver, the adapter
// under the real gateway lifecycle): the conformance cases with a soft logout as the dropped
// connection (password login: the reply waits in the outbox, the re-logged-in client catches up from
// the saved sync token), a restart that continues from the persisted token within the backlog bound,
// and a 429 on send retried once.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExtensionDefinition } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel, recordingRuntime, runGateway } from '../../../sdk/testing/index.ts'
import { tempDir } from '../../helpers/temp.ts'
import { BOT_ID, startFakeHomeserver, type FakeHomeserver } from './fake-homeserver.ts'
import { ALICE, CORE, until } from './harness.ts'

const PASSWORD = 'correct horse battery staple'

function kernelFor(hs: FakeHomeserver, home: string, extensions: ExtensionDefinition[], config: Record<string, unknown> = {}) {
  return createTestKernel({
    home,
    builtins: CORE,
    extensions,
    env: { MATRIX_HOMESERVER: hs.url, MATRIX_USER_ID: BOT_ID, MATRIX_PASSWORD: PASSWORD, MATRIX_ALLOWED_USERS: ALICE, WEBHOOK_PORT: '0', API_SERVER_PORT: '0' },
    config: {
      platforms: { matrix: { enabled: true, extra: { sync_timeout_ms: 1000, start_timeout_ms: 10_000 } } },
      gateway: { human_delay: { min_ms: 1, max_ms: 2 }, reconnect: { initial_ms: 100, max_ms: 500 } },
      ...config,
    },
    kernel: { logLevel: 'info', logSink: { write() {} } },
  })
}

async function fakeServer(t: TestContext): Promise<FakeHomeserver> {
  const hs = await startFakeHomeserver({ password: PASSWORD, maxPollMs: 1000 })
  t.after(() => hs.close())
  return hs
}

test('Matrix conformance: no message lost across a soft logout, a re-login and restarts', async (t) => {
  const hs = await fakeServer(t)
  const room = hs.createRoom({ members: [ALICE] })
  const env = { MATRIX_HOMESERVER: hs.url, MATRIX_ACCESS_TOKEN: hs.token }
  await adapterConformance(t, {
    adapter: 'matrix',
    enabled: () => createTestKernel({ builtins: CORE, env }),
    disabled: () => createTestKernel({ builtins: CORE, env, config: { platforms: { matrix: { enabled: false } } } }),
    continuity: {
      kernel: ({ home, extensions }) => kernelFor(hs, home, extensions),
      say: (text) => void hs.message(room, ALICE, text),
      said: () => hs.sentTo(room).map((s) => String(s.content.body)),
      drop: () => hs.softLogout(),
      keepsHistory: true,
    },
  })
  // Every soft logout ended in a fresh login on the same device.
  assert.ok(hs.logins.length >= 3, `logins: ${hs.logins.length}`)
  assert.equal(new Set(hs.logins.map((l) => l.device_id)).size, 1)
})

test('a restart continues from the persisted sync token: the gap is answered within the bound, older messages get one notice', async (t) => {
  const hs = await fakeServer(t)
  const room = hs.createRoom({ members: [ALICE] })
  const home = tempDir(t)
  const runtime = recordingRuntime()
  const config = { platforms: { matrix: { enabled: true, backlog: { max_messages: 2 }, extra: { sync_timeout_ms: 1000 } } } }
  let k = await kernelFor(hs, home, [runtime.definition], config)
  let gateway = await runGateway(k)
  hs.message(room, ALICE, 'before')
  await until(() => hs.sentTo(room).length === 1, 15_000, () => gateway.lines.join('\n'))
  await gateway.stop()
  await k.close()

  for (const text of ['gap one', 'gap two', 'gap three', 'gap four']) hs.message(room, ALICE, text)
  hs.message(room, ALICE, 'ancient', { ts: Date.now() - 3 * 3_600_000 })
  k = await kernelFor(hs, home, [runtime.definition], config)
  t.after(() => k.close())
  gateway = await runGateway(k)
  t.after(() => gateway.stop())
  await until(() => hs.sentTo(room).length === 4, 15_000, () => `${JSON.stringify(hs.sentTo(room).map((s) => s.content.body))}\n${gateway.lines.join('\n')}`)
  const bodies = hs.sentTo(room).map((s) => String(s.content.body))
  assert.match(bodies[1]!, /^I was offline: 3 earlier messages here/)
  assert.deepEqual(bodies.slice(2), ['echo: gap three', 'echo: gap four'])
  const since = hs.syncs().find((s) => s.query.get('timeout') === '0' && s.query.has('since'))
  assert.ok(since, 'the gap was read with one /sync from the saved token')
  assert.ok(gateway.lines.some((l) => /caught up since the last sync: \d+ event\(s\), 2 answered, 3 summarised/.test(l)), gateway.lines.join('\n'))
  await sleep(300)
  assert.equal(hs.sentTo(room).length, 4)
  assert.deepEqual(runtime.runs.map((r) => r.input), ['before', 'gap three', 'gap four'])
})

/** A fake homeserver with one DM room, and a gateway running the adapter against it. */
async function runningGateway(t: TestContext) {
  const hs = await fakeServer(t)
  const room = hs.createRoom({ members: [ALICE] })
  const runtime = recordingRuntime()
  const k = await kernelFor(hs, tempDir(t), [runtime.definition])
  t.after(() => k.close())
  const gateway = await runGateway(k)
  t.after(() => gateway.stop())
  return { hs, room, gateway }
}

test('a 429 on send: the reply goes out once after retry_after_ms', async (t) => {
  const { hs, room, gateway } = await runningGateway(t)
  hs.rateLimit('send', 2, 150)
  hs.message(room, ALICE, 'slow down')
  await until(() => hs.sentTo(room).length === 1, 20_000, () => gateway.lines.join('\n'))
  assert.equal(hs.requests.filter((r) => r.status === 429).length, 2)
  await sleep(300)
  assert.equal(hs.sentTo(room).length, 1)
  assert.equal(hs.sentTo(room)[0]!.content.body, 'echo: slow down')
})

test('a 429 on /sync: the SDK waits and the next message is answered', async (t) => {
  const { hs, room, gateway } = await runningGateway(t)
  hs.rateLimit('sync', 1, 100)
  hs.message(room, ALICE, 'through the limit')
  await until(() => hs.sentTo(room).length === 1, 30_000, () => gateway.lines.join('\n'))
  assert.ok(hs.syncs().some((s) => s.status === 429))
})
