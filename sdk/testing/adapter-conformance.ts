// The conformance suite every gateway adapter passes, plus a fake adapter (an in-memory chat
// platform) for testing the gateway itself. The suite runs the adapter inside a real test kernel.

import type { TestContext } from 'node:test'
import { GATEWAY_SERVICE, type DispatchResult, type GatewayAdapter, type GatewayService } from '../gateway.ts'
import type { AdapterContext, ExtensionDefinition, Logger, MessageSource } from '../types.ts'
import { adapterContext } from './gateway-harness.ts'
import type { TestKernel } from './test-kernel.ts'

export interface AdapterConformanceCase {
  /** The adapter's registry name. */
  adapter: string
  /** A kernel with the adapter's extension loaded and configured so that it is enabled. */
  enabled(t: TestContext): Promise<TestKernel>
  /** The same, configured so that it is disabled (`platforms.<name>.enabled: false`). */
  disabled(t: TestContext): Promise<TestKernel>
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
}

export interface FakeAdapter {
  definition: ExtensionDefinition
  /** Messages the gateway sent, per chat. */
  sent: Array<{ chatId: string; text: string }>
  /** Typing indicators shown. */
  typing: string[]
  starts: number
  /** Hands a message to the gateway as the platform would. */
  inbound(source: Omit<MessageSource, 'platform'>, text: string, messageId?: string): Promise<DispatchResult>
  /** Reports a lost connection to the gateway. */
  loseConnection(error?: Error): void
}

/** An in-memory platform `name` (default `fake`): `failStarts` first starts throw (retryable). */
export function fakeAdapter(options: { name?: string; failStarts?: number; fatal?: Error; showsTyping?: boolean; maxMessageLength?: number } = {}): FakeAdapter {
  const name = options.name ?? 'fake'
  let services: AdapterContext['services'] | undefined
  let failures = options.failStarts ?? 0
  const fake: FakeAdapter = {
    sent: [],
    typing: [],
    starts: 0,
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
          },
          async stop() {
            services = undefined
          },
          async send(chatId, text) {
            fake.sent.push({ chatId, text })
          },
          ...(options.showsTyping ? { typing: async (chatId: string) => void fake.typing.push(chatId) } : {}),
          ...(options.maxMessageLength ? { maxMessageLength: options.maxMessageLength } : {}),
        }
        api.adapters.register(adapter)
        api.onDispose(() => {
          services = undefined
        })
        services = api.services
      },
    },
    async inbound(source, text, messageId) {
      const gateway = services?.get<GatewayService>(GATEWAY_SERVICE)
      if (!gateway) throw new Error('the gateway service is not available')
      return gateway.dispatch({ source: { platform: name, chatType: 'dm', ...source }, text, messageId })
    },
    loseConnection(error = new Error('connection lost')) {
      services?.get<GatewayService>(GATEWAY_SERVICE)?.connectionLost(name, error)
    },
  }
  return fake
}
