// The conformance suite every gateway adapter passes, plus a fake adapter (an in-memory chat
// platform) for testing the gateway itself. The suite runs the adapter inside a real test kernel.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { defineExtension } from '../define.ts'
import type { RunRequest } from '../model.ts'
import { DeliveryDeferred } from '../gateway-continuity.ts'
import { GATEWAY_SERVICE, type DispatchResult, type GatewayAdapter, type GatewayService } from '../gateway.ts'
import type { AdapterContext, ExtensionDefinition, Logger, MessageSource } from '../types.ts'
import { adapterContext, runGateway } from './gateway-harness.ts'
import type { TestKernel } from './test-kernel.ts'

export interface AdapterConformanceCase {
  /** The adapter's registry name. */
  adapter: string
  /** A kernel with the adapter's extension loaded and configured so that it is enabled. */
  enabled(t: TestContext): Promise<TestKernel>
  /** The same, configured so that it is disabled (`platforms.<name>.enabled: false`). */
  disabled(t: TestContext): Promise<TestKernel>
  /** The platform fake's hooks: with them, the no-message-lost cases run too (every adapter should give them). */
  continuity?: ContinuityCase
}

/**
 * What the no-message-lost cases need from a platform fake. One chat, one authorised user; the fake
 * outlives the kernels (a restart is a new kernel on the same home).
 */
export interface ContinuityCase {
  /**
   * A kernel with the adapter enabled and the test user allowed, on `home` (kept across restarts),
   * loading `extensions` too (the suite's runtime), and `gateway.reconnect.initial_ms` small.
   */
  kernel(options: { home: string; extensions: ExtensionDefinition[] }): Promise<TestKernel>
  /** The user writes `text` in the test chat (the platform keeps it if the adapter is away). */
  say(text: string): Promise<void> | void
  /** Everything the bot has sent to the test chat so far, in order. */
  said(): string[]
  /** The platform drops the adapter's connection (closes it, revokes the session …); it comes back by itself. */
  drop(): Promise<void> | void
  /** The platform keeps messages for a client that was away: one sent while the gateway is down is answered after restart. */
  keepsHistory: boolean
  /** How long to wait for an answer (default 30 s; reconnects with a library's own backoff take time). */
  waitMs?: number
}


/** Runs the shared checks as subtests of `t`. */
export async function adapterConformance(t: TestContext, c: AdapterConformanceCase): Promise<void> {
  await t.test(`${c.adapter}: registered with a snake_case name and a boolean enabled()`, async (st) => {
    const k = await c.enabled(st)
    st.after(() => k.close())
    const adapter = k.kernel.registries.adapters.get(c.adapter) as GatewayAdapter | undefined
    if (!adapter) throw new Error(`adapter "${c.adapter}" is not registered`)
    if (!/^[a-z][a-z0-9_]*$/.test(adapter.name)) throw new Error(`adapter name "${adapter.name}" is not snake_case`)
    if (adapter.enabled(k.kernel.settings) !== true) throw new Error('enabled() is not true when configured on')
    if (adapter.maxMessageLength !== undefined && !(adapter.maxMessageLength > 0)) throw new Error('maxMessageLength must be positive')
  })
  await t.test(`${c.adapter}: disabled by platforms.<name>.enabled: false`, async (st) => {
    const k = await c.disabled(st)
    st.after(() => k.close())
    const adapter = k.kernel.registries.adapters.get(c.adapter)
    if (adapter && adapter.enabled(k.kernel.settings) !== false) throw new Error('enabled() is not false when configured off')
  })
  await t.test(`${c.adapter}: start, stop, stop again, restart`, async (st) => {
    const k = await c.enabled(st)
    st.after(() => k.close())
    await k.kernel.start('gateway')
    const adapter = k.kernel.registries.adapters.get(c.adapter)!
    await adapter.start(adapterContext(k))
    await adapter.stop()
    await adapter.stop()
    await adapter.start(adapterContext(k))
    await adapter.stop()
  })
  if (c.continuity) await t.test(`${c.adapter}: no message lost across reconnects and restarts`, (st) => continuityCases(st, c.adapter, c.continuity!))
}

/** A runtime answering `echo: <input>`; a prompt containing `[slow]` waits until release() is called. */
function gatedRuntime() {
  const runs: string[] = []
  let release!: () => void
  let gate = new Promise<void>((resolve) => (release = resolve))
  const definition = defineExtension({
    name: 'conformance-runtime',
    setup(api) {
      api.services.provide('runtime', {
        async run(request: RunRequest) {
          const input = typeof request.input === 'string' ? request.input : JSON.stringify(request.input)
          runs.push(input)
          if (input.includes('[slow]')) await gate
          return { sessionId: request.sessionId ?? `s${runs.length}`, answer: `echo: ${input}`, exitReason: 'completed', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, apiCalls: 1, model: 'm', provider: 'p', toolTrace: [] }
        },
      })
    },
  })
  return {
    runs,
    definition,
    release() {
      release()
      gate = new Promise<void>((resolve) => (release = resolve))
    },
  }
}

async function until(check: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The no-message-lost cases, in order on one platform fake, with restarts on one home. */
async function continuityCases(t: TestContext, adapter: string, c: ContinuityCase): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'agent-continuity-'))
  t.after(() => rmSync(home, { recursive: true, force: true }))
  const runtime = gatedRuntime()
  const waitMs = c.waitMs ?? 30_000
  const answers = (text: string) => c.said().filter((s) => s.includes(`echo: ${text}`)).length
  const answered = (text: string) => until(() => answers(text) > 0, waitMs, () => `the answer to "${text}"; said: ${JSON.stringify(c.said())}`)
  let k = await c.kernel({ home, extensions: [runtime.definition] })
  let gateway = await runGateway(k)
  const log = () => gateway.lines.join('\n')
  const stop = async () => {
    await gateway.stop()
    await k.close()
  }
  try {
    await t.test(`${adapter}: a message is answered`, async () => {
      await c.say('hello')
      await answered('hello')
    })
    await t.test(`${adapter}: a message during a reconnect is answered`, async () => {
      await c.drop()
      await c.say('during the reconnect')
      await answered('during the reconnect')
    })
    await t.test(`${adapter}: a reply in flight when the connection drops is delivered after the reconnect`, async () => {
      await c.say('in flight [slow]')
      await until(() => runtime.runs.some((r) => r.includes('in flight [slow]')), waitMs, () => `the slow turn; ${log()}`)
      await c.drop()
      runtime.release()
      await answered('in flight [slow]')
    })
    await t.test(`${adapter}: a message sent while the gateway is down is ${c.keepsHistory ? 'answered after the restart' : 'not required (no history)'}`, async () => {
      await stop()
      await c.say('while down')
      k = await c.kernel({ home, extensions: [runtime.definition] })
      gateway = await runGateway(k)
      if (c.keepsHistory) await answered('while down')
      await c.say('after the restart')
      await answered('after the restart')
    })
    await t.test(`${adapter}: nothing is answered twice`, async () => {
      // Give redeliveries and retries a moment to show up, then count.
      await new Promise((resolve) => setTimeout(resolve, 500))
      for (const text of ['hello', 'during the reconnect', 'in flight [slow]', ...(c.keepsHistory ? ['while down'] : []), 'after the restart']) {
        if (answers(text) !== 1) throw new Error(`"${text}" was answered ${answers(text)} times: ${JSON.stringify(c.said())}`)
      }
      const runs = new Map<string, number>()
      for (const r of runtime.runs) runs.set(r, (runs.get(r) ?? 0) + 1)
      const twice = [...runs].filter(([, n]) => n > 1)
      if (twice.length > 0) throw new Error(`run more than once: ${JSON.stringify(twice)}`)
    })
  } finally {
    runtime.release()
    await stop()
  }
}

export interface FakeAdapter {
  definition: ExtensionDefinition
  /** Messages the gateway sent, per chat. */
  sent: Array<{ chatId: string; text: string; options?: Record<string, unknown> }>
  /** Typing indicators shown. */
  typing: string[]
  starts: number
  /** Whether the adapter is connected (started and not dropped). */
  readonly connected: boolean
  /** Hands a message to the gateway as the platform would. */
  inbound(source: Omit<MessageSource, 'platform'>, text: string, messageId?: string): Promise<DispatchResult>
  /**
   * A user writes in a chat of the platform, which keeps it in its history (ids `m1`, `m2` …): handed
   * to the gateway at once while connected, else caught up from the resume point at the next start.
   */
  post(source: Omit<MessageSource, 'platform'>, text: string): Promise<void>
  /** Reports a lost connection to the gateway; sends fail (deferred) until the next start. */
  loseConnection(error?: Error): void
  /** When set, send() throws what it returns for a chat (a platform refusing it). */
  sendError?: (chatId: string) => Error | undefined
}

/** An in-memory platform `name` (default `fake`): `failStarts` first starts throw (retryable). */
export function fakeAdapter(options: { name?: string; failStarts?: number; fatal?: Error; showsTyping?: boolean; maxMessageLength?: number } = {}): FakeAdapter {
  const name = options.name ?? 'fake'
  let services: AdapterContext['services'] | undefined
  let failures = options.failStarts ?? 0
  let connected = false
  const history: Array<{ id: string; source: MessageSource; text: string; at: number }> = []
  const gateway = () => services?.get<GatewayService>(GATEWAY_SERVICE)
  const deliver = async (entry: (typeof history)[number]) => {
    const service = gateway()
    if (!service) throw new Error('the gateway service is not available')
    const result = await service.dispatch({ source: entry.source, text: entry.text, messageId: entry.id, receivedAt: entry.at })
    await service.resumePoint(name).set(entry.id)
    return result
  }
  const fake: FakeAdapter = {
    sent: [],
    typing: [],
    starts: 0,
    get connected() {
      return connected
    },
    definition: {
      name: `${name.replace(/_/g, '-')}-adapter`,
      setup(api) {
        const adapter: GatewayAdapter = {
          name,
          enabled: (settings) => settings.get(`platforms.${name}.enabled`) !== false,
          async start(ctx) {
            fake.starts++
            if (options.fatal) throw options.fatal
            if (failures > 0) {
              failures--
              throw new Error('platform unreachable')
            }
            services = ctx.services
            // Catch up from the resume point: what the platform kept while the adapter was away.
            const service = gateway()
            const cursor = await service?.resumePoint(name).get()
            const from = cursor === undefined ? history.length : history.findIndex((m) => m.id === cursor) + 1
            const backlog = history.slice(from)
            connected = true
            if (service && backlog.length > 0) {
              await service.catchUp(name, backlog.map((m) => ({ source: m.source, text: m.text, messageId: m.id, receivedAt: m.at })))
              await service.resumePoint(name).set(backlog.at(-1)!.id)
            }
          },
          async stop() {
            connected = false
          },
          async send(chatId, text, sendOptions) {
            if (!connected) throw new DeliveryDeferred(`the ${name} platform is not connected`)
            const refused = fake.sendError?.(chatId)
            if (refused) throw refused
            fake.sent.push({ chatId, text, ...(sendOptions ? { options: sendOptions } : {}) })
          },
          ...(options.showsTyping ? { typing: async (chatId: string) => void fake.typing.push(chatId) } : {}),
          ...(options.maxMessageLength ? { maxMessageLength: options.maxMessageLength } : {}),
        }
        api.adapters.register(adapter)
        api.onDispose(() => {
          services = undefined
          connected = false
        })
        services = api.services
        // Sends work outside `gateway run` (in-process tests that never start it).
        connected = true
      },
    },
    async inbound(source, text, messageId) {
      const service = gateway()
      if (!service) throw new Error('the gateway service is not available')
      return service.dispatch({ source: { platform: name, chatType: 'dm', ...source }, text, messageId })
    },
    async post(source, text) {
      const entry = { id: `m${history.length + 1}`, source: { platform: name, chatType: 'dm' as const, ...source }, text, at: Date.now() }
      history.push(entry)
      if (connected && services) await deliver(entry)
    },
    loseConnection(error = new Error('connection lost')) {
      connected = false
      gateway()?.connectionLost(name, error)
    },
  }
  return fake
}
