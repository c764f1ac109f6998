// The webhook adapter: POST /webhooks/<route> on the `webhook` listener. Signed events from code
// hosts and other services are checked (intake.ts), rendered into a prompt, run by the agent in the
// background with the route's skills, and the answer delivered (log, a chat, a code-host comment).
// Webhook events bypass the user allowlist: the HMAC signature is their authentication.

import {
  DELIVERY_SERVICE, defineAdapter, defineExtension, envSwitchOn, errorMessage, redactPhonesIn, RUNTIME_SERVICE, SESSIONS_SERVICE,
  type AdapterContext, type AgentRuntime, type DeliveryService, type SessionStore, type Settings,
} from 'agent/sdk'
import { handleWebhook, type Accepted } from './intake.ts'
import { RateLimiter, SeenDeliveries } from './limits.ts'
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
  dependsOn: ['http'],
  setup(api) {
    let active: WebhookSettings | undefined
    let ctx: AdapterContext | undefined
    const limiter = new RateLimiter()
    const seen = new SeenDeliveries()
    const inflight = new Set<Promise<void>>()
    let runs = new AbortController()

    async function run(delivery: Accepted): Promise<void> {
      const { route, event, deliveryId, payload } = delivery
      const log = ctx?.log ?? api.log
      const services = api.services
      const prompt = route.prompt ? renderTemplate(route.prompt, payload) : defaultPrompt(event, route.name, payload)
      const extra: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(route.deliverExtra)) extra[key] = typeof value === 'string' ? renderTemplate(value, payload) : value
      const chatId = `webhook:${route.name}:${deliveryId}`
      try {
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
        const delivery = services.get<DeliveryService>(DELIVERY_SERVICE)
        if (!delivery) throw new Error('the delivery service is not loaded')
        const receipt = await delivery.send(delivery.parse(route.deliver, extra), result.answer)
        log.info(`delivery ${deliveryId} of route "${route.name}" (${event}) answered to ${receipt.description}`)
      } catch (error) {
        log.error(`delivery ${deliveryId} of route "${route.name}" failed: ${redactPhonesIn(errorMessage(error))}`)
      }
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
            seen,
            onAccepted(delivery) {
              ;(ctx?.log ?? api.log).info(`accepted delivery ${delivery.deliveryId} on route "${delivery.route.name}" (${delivery.event})`)
              const task = run(delivery).finally(() => inflight.delete(task))
              inflight.add(task)
            },
          }),
      })
    }

    api.adapters.register(
      defineAdapter({
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
    )
  },
})
