// The webhook adapter: POST /webhooks/<route> on the `webhook` listener. Signed events from code
// hosts and other services are checked (intake.ts), rendered into a prompt, run by the agent in the
// background with the route's skills, and the answer delivered (log, a chat, a code-host comment).
// Webhook events bypass the user allowlist: the HMAC signature is their authentication.

import {
  DATABASE_SERVICE, DELIVERY_SERVICE, defineAdapter, defineExtension, envSwitchOn, errorMessage, redactPhonesIn, RUNTIME_SERVICE, SESSIONS_SERVICE, STORAGE_SERVICE,
  type AdapterContext, type AgentRuntime, type GatewayAdapter, type DatabaseService, type DeliveryService, type SessionStore, type Settings, type StorageService,
} from 'agent/sdk'
import { handleWebhook, type Accepted } from './intake.ts'
import { PG_MIGRATIONS, type DeliveryLedger } from './ledger.ts'
import { PgDeliveryLedger } from './ledger-pg.ts'
import { SqliteDeliveryLedger } from './ledger-sqlite.ts'
import { RateLimiter, type RateLimit } from './limits.ts'
import { PgRateLimiter } from './limits-pg.ts'
import { loadRoutes, type WebhookSettings } from './routes.ts'
import { defaultPrompt, renderTemplate } from './template.ts'


export function webhookEnabled(settings: Settings): boolean {
  const configured = settings.get<boolean>('platforms.webhook.enabled')
  if (configured === false) return false
  return configured === true || envSwitchOn(settings.env('WEBHOOK_ENABLED'))
}

export default defineExtension({
  name: 'webhook',
  version: '1.0.0',
  description: 'Inbound webhooks: signed events run the agent and deliver its answer',
  dependsOn: ['http', 'state-db', 'storage'],
  setup(api) {
    let active: WebhookSettings | undefined
    let ctx: AdapterContext | undefined
    const storage = () => api.services.require<StorageService>(STORAGE_SERVICE)
    storage().declare('webhook', PG_MIGRATIONS)
    // Several instances on PostgreSQL share the deliveries seen and the rate limits; SQLite: one per home.
    const shared = storage().backend === 'postgres'
    const limiter: RateLimit = shared ? new PgRateLimiter(() => storage().postgres()) : new RateLimiter()
    const ledger: DeliveryLedger = shared ? new PgDeliveryLedger(() => storage().postgres()) : new SqliteDeliveryLedger(() => api.services.get<DatabaseService>(DATABASE_SERVICE))
    const inflight = new Set<Promise<void>>()
    let runs = new AbortController()

    const logger = () => ctx?.log ?? api.log

    /** One accepted delivery, start to end. Never rejects: every failure is logged and marks the delivery failed. */
    async function run(delivery: Accepted): Promise<void> {
      const { route, event, deliveryId, payload } = delivery
      const log = logger()
      const services = api.services
      let status: 'answered' | 'failed' = 'failed'
      try {
        // Rendered in here: whatever the payload does to a template is this delivery's failure, not the process's.
        const prompt = route.prompt ? renderTemplate(route.prompt, payload) : defaultPrompt(event, route.name, payload)
        const extra: Record<string, unknown> = {}
        for (const [key, value] of Object.entries(route.deliverExtra)) extra[key] = typeof value === 'string' ? renderTemplate(value, payload) : value
        const chatId = `webhook:${route.name}:${deliveryId}`
        const runtime = services.get<AgentRuntime>(RUNTIME_SERVICE)
        if (!runtime) throw new Error('the agent runtime is not loaded')
        const result = await runtime.run({
          input: prompt,
          skills: route.skills.length > 0 ? route.skills : undefined,
          source: { platform: 'webhook', userId: `webhook:${route.name}`, chatId },
          signal: runs.signal,
          extra: { webhook: { route: route.name, event, deliveryId } },
        })
        await services.get<SessionStore>(SESSIONS_SERVICE)?.end(result.sessionId, 'webhook_complete').catch(() => undefined)
        const sender = services.get<DeliveryService>(DELIVERY_SERVICE)
        if (!sender) throw new Error('the delivery service is not loaded')
        const receipt = await sender.send(sender.parse(route.deliver, extra), result.answer)
        status = 'answered'
        log.info(`delivery ${deliveryId} of route "${route.name}" (${event}) answered to ${receipt.description}`)
      } catch (error) {
        log.error(`delivery ${deliveryId} of route "${route.name}" failed: ${redactPhonesIn(errorMessage(error))}`)
      }
      await ledger.settle(route.name, delivery.signedKey, status).catch((error) => log.warn(`could not record the end of delivery ${deliveryId}: ${errorMessage(error)}`))
    }

    if (webhookEnabled(api.settings)) {
      api.endpoints.register({
        listener: 'webhook',
        method: 'POST',
        path: '/webhooks/:route',
        auth: 'none',
        handler: (koa) =>
          handleWebhook(koa, {
            settings: () => active,
            limiter,
            ledger,
            onAccepted(delivery) {
              logger().info(`accepted delivery ${delivery.deliveryId} on route "${delivery.route.name}" (${delivery.event})`)
              // run() catches its own failures; this catch is the last line, so no delivery can become an unhandled rejection.
              const task: Promise<void> = run(delivery)
                .catch((error) => logger().error(`delivery ${delivery.deliveryId} of route "${delivery.route.name}" failed: ${redactPhonesIn(errorMessage(error))}`))
                .finally(() => inflight.delete(task))
              inflight.add(task)
            },
            onError: (message) => logger().error(message),
          }),
      })
    }

    api.adapters.register({
      // HTTP intake: every instance takes deliveries (the shared ledger runs each once).
      everyInstance: true,
      ...defineAdapter({
        name: 'webhook',
        description: 'Signed inbound webhooks (POST /webhooks/<route>)',
        enabled: webhookEnabled,
        async start(context) {
          const loaded = loadRoutes(context.settings)
          if (loaded.routes.size === 0) context.log.warn('no webhook routes configured (platforms.webhook.extra.routes)')
          ctx = context
          runs = new AbortController()
          active = loaded
        },
        async stop() {
          active = undefined
          // Let runs in flight finish for a while, then interrupt what is left.
          const pending = Promise.allSettled([...inflight])
          const timer = setTimeout(() => runs.abort(), 10_000)
          await pending
          clearTimeout(timer)
        },
      }),
    } as GatewayAdapter)
  },
})
