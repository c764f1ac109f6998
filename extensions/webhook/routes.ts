// Webhook routes from `platforms.webhook.extra.routes.<name>`, validated when the adapter starts: a
// route without a secret (its own, `extra.secret`, or WEBHOOK_SECRET) fails startup.

import { ConfigError, JSON_INTAKE_DEFAULTS, type JsonBounds, type Settings } from 'agent/sdk'
import { SIGNATURE_SCHEMES, type SignatureScheme } from './signature.ts'

export interface WebhookRoute {
  name: string
  secret: string
  events: string[]
  prompt?: string
  skills: string[]
  deliver: string
  deliverExtra: Record<string, unknown>
  signature?: SignatureScheme
  rateLimit: number
}

export interface WebhookSettings {
  routes: Map<string, WebhookRoute>
  maxBodyBytes: number
  /** Nesting depth and member/element count a payload may have (checked before it is parsed). */
  jsonBounds: Required<JsonBounds>
}

const asList = (value: unknown, what: string): string[] => {
  if (value === undefined || value === null) return []
  if (typeof value === 'string') return [value]
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[]
  throw new ConfigError(`${what} must be a list of strings`)
}

function positive(value: unknown, fallback: number, where: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new ConfigError(`${where} must be a positive integer`)
  return value
}

export function loadRoutes(settings: Settings): WebhookSettings {
  const extra = (settings.get<Record<string, unknown>>('platforms.webhook.extra') ?? {}) as Record<string, unknown>
  const globalSecret = (typeof extra.secret === 'string' && extra.secret) || settings.env('WEBHOOK_SECRET')
  const rateLimit = extra.rate_limit === undefined ? 30 : Number(extra.rate_limit)
  const maxBodyBytes = extra.max_body_bytes === undefined ? 1_048_576 : Number(extra.max_body_bytes)
  if (!Number.isInteger(rateLimit) || rateLimit < 1) throw new ConfigError('platforms.webhook.extra.rate_limit must be a positive integer (requests per minute per route)')
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1) throw new ConfigError('platforms.webhook.extra.max_body_bytes must be a positive integer')
  const jsonBounds = {
    maxDepth: positive(extra.max_json_depth, JSON_INTAKE_DEFAULTS.maxDepth, 'platforms.webhook.extra.max_json_depth'),
    maxKeys: positive(extra.max_json_keys, JSON_INTAKE_DEFAULTS.maxKeys, 'platforms.webhook.extra.max_json_keys'),
  }
  const raw = extra.routes ?? {}
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError('platforms.webhook.extra.routes must be a mapping of route names')
  const routes = new Map<string, WebhookRoute>()
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const where = `platforms.webhook.extra.routes.${name}`
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new ConfigError(`${where}: a route name is 1-64 letters, digits, - or _`)
    const route = (value ?? {}) as Record<string, unknown>
    if (route.enabled === false) continue
    const secret = (typeof route.secret === 'string' && route.secret) || globalSecret
    if (!secret) throw new ConfigError(`${where} has no secret: set ${where}.secret (or WEBHOOK_SECRET)`)
    const signature = route.signature as SignatureScheme | undefined
    if (signature !== undefined && !SIGNATURE_SCHEMES.includes(signature)) throw new ConfigError(`${where}.signature must be one of ${SIGNATURE_SCHEMES.join(', ')}`)
    if (route.prompt !== undefined && typeof route.prompt !== 'string') throw new ConfigError(`${where}.prompt must be a string`)
    const limit = route.rate_limit === undefined ? rateLimit : Number(route.rate_limit)
    if (!Number.isInteger(limit) || limit < 1) throw new ConfigError(`${where}.rate_limit must be a positive integer`)
    const deliverExtra = route.deliver_extra ?? {}
    if (typeof deliverExtra !== 'object' || Array.isArray(deliverExtra)) throw new ConfigError(`${where}.deliver_extra must be a mapping`)
    routes.set(name, {
      name,
      secret,
      events: asList(route.events, `${where}.events`),
      prompt: route.prompt as string | undefined,
      skills: asList(route.skills, `${where}.skills`),
      deliver: typeof route.deliver === 'string' ? route.deliver : 'log',
      deliverExtra: deliverExtra as Record<string, unknown>,
      signature,
      rateLimit: limit,
    })
  }
  return { routes, maxBodyBytes, jsonBounds }
}
