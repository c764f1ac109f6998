// No Discord message lost (real discord.js against the loopback fake, the adapter under the real
// gateway lifecycle): the conformance cases with a cut socket (resume and replay) and a restart (the
// channel's history read back over REST), and the protocol edges: op 7 RECONNECT, op 9 INVALID_SESSION
// not resumable (a new session: the gap read back over REST), heartbeats left without ACK, and a DM
// MESSAGE_CREATE without channel_type from an uncached channel.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExtensionDefinition } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel, recordingRuntime, runGateway, type InProcessGateway } from '../../../sdk/testing/index.ts'
import { until } from '../../helpers/until.ts'
import { tempDir } from '../../helpers/temp.ts'
import { dmChannel, startFakeDiscord, USERS, type FakeDiscord } from './fake-discord.ts'
import { TOKEN } from './harness.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'discord']
const DM = dmChannel('alice')

function kernelFor(fake: FakeDiscord, home: string, extensions: ExtensionDefinition[]) {
  return createTestKernel({
    home,
    builtins: CORE,
    extensions,
    env: { DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_BASE_URL: fake.apiBase, DISCORD_ALLOWED_USERS: USERS.alice.id, WEBHOOK_PORT: '0', API_SERVER_PORT: '0' },
    config: {
      gateway: { human_delay: { min_ms: 0, max_ms: 5 }, reconnect: { initial_ms: 100, max_ms: 500 } },
      platforms: { discord: { extra: { connect_timeout_seconds: 10, slash_commands: false } } },
    },
    kernel: { logLevel: 'info', logSink: { write() {} } },
  })
}

async function fakeDiscord(t: TestContext, heartbeatIntervalMs = 2000): Promise<FakeDiscord> {
  const fake = await startFakeDiscord({ token: TOKEN, heartbeatIntervalMs })
  t.after(() => fake.close())
  return fake
}

async function running(t: TestContext, fake: FakeDiscord): Promise<{ gateway: InProcessGateway; runs: () => string[] }> {
  const runtime = recordingRuntime()
  const k = await kernelFor(fake, tempDir(t), [runtime.definition])
  t.after(() => k.close())
  const gateway = await runGateway(k)
  t.after(() => gateway.stop())
  return { gateway, runs: () => runtime.runs.map((r) => String(r.input)) }
}

const answered = (fake: FakeDiscord, text: string) => fake.posted(DM).filter((p) => p === `echo: ${text}`).length

test('Discord conformance: no message lost across dropped connections and restarts', async (t) => {
  const fake = await fakeDiscord(t)
  const env = { DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_BASE_URL: fake.apiBase }
  await adapterConformance(t, {
    adapter: 'discord',
    enabled: () => createTestKernel({ builtins: CORE, env }),
    disabled: () => createTestKernel({ builtins: CORE, env, config: { platforms: { discord: { enabled: false } } } }),
    continuity: {
      kernel: ({ home, extensions }) => kernelFor(fake, home, extensions),
      say: (text) => void fake.message({ from: 'alice', content: text }),
      said: () => fake.posted(DM),
      drop: () => fake.drop(),
      // A channel's history is kept: what arrived while the gateway was down is read back over REST.
      keepsHistory: true,
    },
  })
})

test('op 7 RECONNECT: the client resumes and a message sent meanwhile is answered once', async (t) => {
  const fake = await fakeDiscord(t)
  const { gateway } = await running(t, fake)
  fake.requestReconnect()
  fake.message({ from: 'alice', content: 'after op 7' })
  await until(() => fake.resumes().length === 1, 10_000, () => gateway.lines.join('\n'))
  await until(() => answered(fake, 'after op 7') === 1, 10_000, () => JSON.stringify(fake.posted(DM)))
  await sleep(300)
  assert.equal(answered(fake, 'after op 7'), 1)
})

test('op 9 INVALID_SESSION, not resumable: a new session, and the message of the gap is read back and answered', async (t) => {
  const fake = await fakeDiscord(t)
  const { gateway, runs } = await running(t, fake)
  fake.message({ from: 'alice', content: 'before' })
  await until(() => answered(fake, 'before') === 1, 10_000, () => gateway.lines.join('\n'))
  fake.invalidSession(false)
  // No session now: Discord keeps it in the channel only.
  fake.message({ from: 'alice', content: 'in the gap' })
  await until(() => fake.identifies().length === 2, 15_000, () => gateway.lines.join('\n'))
  await until(() => answered(fake, 'in the gap') === 1, 15_000, () => `${JSON.stringify(fake.posted(DM))}\n${gateway.lines.join('\n')}`)
  assert.ok(gateway.lines.some((l) => /caught up on Discord: 1 message\(s\) the gateway did not get live, 1 answered/.test(l)), gateway.lines.join('\n'))
  fake.message({ from: 'alice', content: 'after' })
  await until(() => answered(fake, 'after') === 1, 10_000, 'the next answer')
  await sleep(300)
  assert.deepEqual(runs(), ['before', 'in the gap', 'after'])
})

test('heartbeats without ACK: the client takes the connection as dead, resumes, and answers', async (t) => {
  const fake = await fakeDiscord(t, 300)
  const { gateway } = await running(t, fake)
  const connections = fake.connections()
  fake.withholdHeartbeatAcks(true)
  await until(() => fake.connections() > connections, 15_000, () => `a new connection; ${gateway.lines.join('\n')}`)
  fake.withholdHeartbeatAcks(false)
  fake.message({ from: 'alice', content: 'after the zombie connection' })
  await until(() => answered(fake, 'after the zombie connection') === 1, 15_000, () => gateway.lines.join('\n'))
  await sleep(300)
  assert.equal(answered(fake, 'after the zombie connection'), 1)
})

test('a DM without channel_type from an uncached channel is answered, not dropped', async (t) => {
  const fake = await fakeDiscord(t)
  const { gateway } = await running(t, fake)
  fake.message({ from: 'alice', content: 'no channel type', noChannelType: true })
  await until(() => answered(fake, 'no channel type') === 1, 10_000, () => gateway.lines.join('\n'))
})
