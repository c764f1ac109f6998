// In-process harness for the whatsapp adapter: a real test kernel with a recording runtime, the
// adapter spawning the test bridge (fake-bridge.mjs) exactly as it spawns the real one, a linked
// session (creds.json with `me`) in the temporary home, and calls to the bridge's test routes.

import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type AdapterContext, type GatewayAdapter } from '../../../sdk/index.ts'
import { adapterContext, createTestKernel, recordingLog, recordingRuntime, runInputs, stopWhenTestEnds, type RecordingRuntimeHarness } from '../../../sdk/testing/index.ts'
import type { BridgeRun } from '../../../extensions/whatsapp/bridge-process.ts'

export const FAKE_BRIDGE = join(dirname(fileURLToPath(import.meta.url)), 'fake-bridge.mjs')
export const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'whatsapp']
export const ME = { id: '15550000001:7@s.whatsapp.net', lid: '99990000001:7@lid' }
export const OWN = '15550000001@s.whatsapp.net'
export const OWNER = '+15550000001'
export const ALICE = '15550001111@s.whatsapp.net'
export const MALLORY = '15550009999@s.whatsapp.net'
/** The test bridge's settings: short polls, quick health checks and restarts. */
export const FAST = { bridge_script: FAKE_BRIDGE, health_interval_ms: 100, restart_initial_ms: 50, restart_max_ms: 200, poll_timeout_ms: 300, start_timeout_ms: 15_000 }

export type WhatsAppAdapter = GatewayAdapter & { bridge(): BridgeRun | undefined; send: NonNullable<GatewayAdapter['send']> }

export function link(home: string): void {
  mkdirSync(join(home, 'whatsapp', 'auth'), { recursive: true })
  writeFileSync(join(home, 'whatsapp', 'auth', 'creds.json'), JSON.stringify({ me: ME }))
}

export interface Harness extends RecordingRuntimeHarness<WhatsAppAdapter> {
  /** POSTs to a route of the running bridge (with its token). */
  bridge<T = any>(path: string, body?: unknown): Promise<T>
  /** A raw WhatsApp Web message into the bridge (through its real filter). */
  inbound(remoteJid: string, text: string, key?: Record<string, unknown>): Promise<{ ok: boolean; reason?: string }>
  sent(): Promise<{ sent: Array<{ chatId: string; text?: string; id?: string; typing?: string }>; ignored: Array<{ id: string; reason: string }> }>
}

export interface HarnessOptions {
  env?: Record<string, string | undefined>
  extra?: Record<string, unknown>
  /** Built-ins loaded besides CORE (`stt`, `tts` for voice) and their config sections. */
  builtins?: string[]
  config?: Record<string, unknown>
}

let ids = 0

export async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const runtime = recordingRuntime({ answer: (input) => `Answer to: ${input}` })
  const k = await createTestKernel({
    builtins: [...CORE, ...(options.builtins ?? [])],
    extensions: [runtime.definition],
    config: { platforms: { whatsapp: { enabled: true, extra: { ...FAST, ...options.extra } } }, gateway: { human_delay: { min_ms: 1, max_ms: 2 } }, ...options.config },
    env: { WHATSAPP_ALLOWED_USERS: `${OWNER},+15550001111`, OPENAI_API_KEY: 'sk-must-not-reach-the-bridge', WEBHOOK_PORT: '0', API_SERVER_PORT: '0', ...options.env },
  })
  t.after(() => k.close())
  link(k.home)
  const adapter = k.kernel.registries.adapters.get('whatsapp') as WhatsAppAdapter | undefined
  if (!adapter) throw new Error(`the whatsapp adapter is not registered: ${JSON.stringify(k.kernel.extensions().filter((e) => e.state !== 'loaded'))}`)
  const log = recordingLog()
  const controller = new AbortController()
  const context = (): AdapterContext => adapterContext(k, { log, signal: controller.signal })
  const bridge = <T>(path: string, body: unknown = {}) => {
    const run = adapter.bridge()
    if (!run) throw new Error('the bridge is not running')
    return run.client.request<T>('POST', path, body, 5000)
  }
  return {
    k,
    adapter,
    runs: runtime.runs,
    lines: log.lines,
    context,
    async start() {
      stopWhenTestEnds(t, adapter, controller)
      await adapter.start(context())
    },
    inputs: () => runInputs(runtime.runs),
    bridge,
    async inbound(remoteJid, text, key = {}) {
      const [result] = await bridge<Array<{ ok: boolean; reason?: string }>>('/test/inbound', { message: { key: { remoteJid, id: `IN${++ids}`, fromMe: false, ...key }, message: { conversation: text }, messageTimestamp: Math.floor(Date.now() / 1000) } })
      return result!
    },
    sent: () => bridge('/test/sent'),
  }
}

export { until } from '../../helpers/until.ts'
