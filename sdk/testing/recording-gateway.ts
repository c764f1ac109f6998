// The AdapterContext an in-process adapter test hands its adapter: the kernel's real services, with the
// gateway wrapped so that a lost connection is recorded instead of restarting the adapter (the test
// watches the adapter's own reconnects) and every drop is recorded before the real gateway sees it.

import { GATEWAY_SERVICE, type GatewayService } from '../gateway.ts'
import type { DroppedMessage } from '../gateway-continuity.ts'
import type { AdapterContext, Logger } from '../types.ts'
import type { GatewayAdapter } from '../gateway.ts'
import type { TestKernel } from './test-kernel.ts'

export interface RecordingGateway {
  /** connectionLost calls the adapter made to the gateway. */
  lost: Array<{ adapter: string; error: unknown }>
  /** Messages the adapter reported as dropped on purpose. */
  drops: Array<{ adapter: string; message: DroppedMessage }>
  /** A fresh context over the recording gateway (same signal, log and records every time). */
  context(): AdapterContext
}

export function recordingGateway(kernel: TestKernel, options: { log: Logger; signal: AbortSignal }): RecordingGateway {
  const lost: RecordingGateway['lost'] = []
  const drops: RecordingGateway['drops'] = []
  const services = kernel.kernel.services
  const context = (): AdapterContext => ({
    signal: options.signal,
    log: options.log,
    settings: kernel.kernel.settings,
    services: {
      ...services,
      provide: () => {
        throw new Error('adapters cannot provide services')
      },
      get: <T>(name: string): T | undefined => {
        const value = services.get<T>(name)
        if (name !== GATEWAY_SERVICE || !value) return value
        const gateway = value as unknown as GatewayService
        return {
          ...gateway,
          connectionLost: (adapter: string, error: unknown) => void lost.push({ adapter, error }),
          dropped: (adapter: string, message: DroppedMessage) => {
            drops.push({ adapter, message })
            gateway.dropped(adapter, message)
          },
        } as T
      },
    },
  })
  return { lost, drops, context }
}

/** When the test ends: abort the adapter's signal, then stop it (as the gateway does on shutdown). */
export function stopWhenTestEnds(t: { after(fn: () => Promise<void>): void }, adapter: { stop(): Promise<void> }, controller: AbortController): void {
  t.after(async () => {
    controller.abort()
    await adapter.stop()
  })
}

/** The adapter `name` of a test kernel; throws when any extension failed to load or it is missing. */
export function registeredAdapter<T = GatewayAdapter>(kernel: TestKernel, name: string): T {
  const failed = kernel.kernel.extensions().filter((e) => e.state === 'failed')
  if (failed.length) throw new Error(`extensions failed: ${failed.map((e) => `${e.name}: ${e.reason}`).join('; ')}`)
  const adapter = kernel.kernel.registries.adapters.get(name) as T | undefined
  if (!adapter) throw new Error(`the ${name} adapter is not registered`)
  return adapter
}
