// No DingTalk message lost (the real dingtalk-stream SDK against the loopback fake, the adapter under
// the real gateway lifecycle): the conformance cases with a cut connection, and the handover a
// SYSTEM `disconnect` announces: the next connection opens at once, the old one serves until then
// and is closed by the client well before the server would, and a message sent right after the
// notice is answered once.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExtensionDefinition } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel, recordingRuntime, runGateway } from '../../../sdk/testing/index.ts'
import { until } from '../../helpers/until.ts'
import { tempDir } from '../../helpers/temp.ts'
import { robotMessage, startFakeDingTalk, type FakeDingTalk } from './fake-dingtalk.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'workplace-chat']
const CLIENT_ID = 'dingappkey00000001'
const SECRET = 'dt-client-secret-0123456789abcdef'
const SESSION = 'alice-dm'

function kernelFor(fake: FakeDingTalk, home: string, extensions: ExtensionDefinition[]) {
  return createTestKernel({
    home,
    builtins: CORE,
    extensions,
    env: { DINGTALK_CLIENT_ID: CLIENT_ID, DINGTALK_CLIENT_SECRET: SECRET, DINGTALK_GATEWAY_URL: fake.gatewayUrl, DINGTALK_API_BASE_URL: fake.origin, DINGTALK_ALLOWED_USERS: 'staff-alice' },
    config: { platforms: { dingtalk: { extra: { reconnect_initial_ms: 50, reconnect_max_ms: 400 } } }, gateway: { reconnect: { initial_ms: 100, max_ms: 500 } } },
    kernel: { logLevel: 'info', logSink: { write() {} } },
  })
}

async function fakeDingTalk(t: TestContext): Promise<FakeDingTalk> {
  const fake = await startFakeDingTalk({ clientId: CLIENT_ID, clientSecret: SECRET })
  t.after(() => fake.close())
  return fake
}

const said = (fake: FakeDingTalk) => fake.replies.filter((r) => r.session === SESSION).map((r) => String(r.body?.markdown?.text ?? ''))

test('DingTalk conformance: no message lost across dropped connections and restarts', async (t) => {
  const fake = await fakeDingTalk(t)
  const env = { DINGTALK_CLIENT_ID: CLIENT_ID, DINGTALK_CLIENT_SECRET: SECRET, DINGTALK_GATEWAY_URL: fake.gatewayUrl, DINGTALK_API_BASE_URL: fake.origin }
  await adapterConformance(t, {
    adapter: 'dingtalk',
    enabled: () => createTestKernel({ builtins: CORE, env }),
    disabled: () => createTestKernel({ builtins: CORE, env, config: { platforms: { dingtalk: { enabled: false } } } }),
    continuity: {
      kernel: ({ home, extensions }) => kernelFor(fake, home, extensions),
      say: (text) => void fake.push(robotMessage(fake, { text, session: SESSION })),
      said: () => said(fake),
      drop: () => fake.drop(),
      // DingTalk redelivers a callback for a while, but keeps no history for a gateway that is down.
      keepsHistory: false,
    },
  })
})

test('SYSTEM disconnect: the next connection opens at once and takes over without a gap', async (t) => {
  const fake = await fakeDingTalk(t)
  const runtime = recordingRuntime()
  const k = await kernelFor(fake, tempDir(t), [runtime.definition])
  t.after(() => k.close())
  const gateway = await runGateway(k)
  t.after(() => gateway.stop())
  assert.equal(fake.connections(), 1)
  const announced = Date.now()
  fake.announceDisconnect(10_000)
  // Right after the notice, before any new connection: delivered on the old one, which still serves.
  fake.push(robotMessage(fake, { text: 'right after the notice', session: SESSION }))
  await until(() => fake.connections() === 2 && fake.live() === 1, 5000, () => `the handover; ${gateway.lines.join('\n')}`)
  assert.ok(Date.now() - announced < 5000, 'switched over long before the server closes the old connection')
  fake.push(robotMessage(fake, { text: 'on the new connection', session: SESSION }))
  await until(() => said(fake).length === 2, 5000, () => JSON.stringify(said(fake)))
  assert.deepEqual(said(fake).sort(), ['echo: on the new connection', 'echo: right after the notice'])
  assert.ok(gateway.lines.some((l) => l.includes('DingTalk announced a disconnect: switched to a new stream connection')), gateway.lines.join('\n'))
  assert.ok(!gateway.lines.some((l) => /DingTalk stream down/.test(l)), 'no reconnect after a lost connection was needed')
  await sleep(300)
  assert.equal(runtime.runs.length, 2)
})
