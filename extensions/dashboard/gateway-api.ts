// The Gateway page's API: adapter states (from the gateway in this process, else the state file a
// running gateway writes), pending DM pairings (approved by the code the user was sent, as
// `agent pairing approve` does), waiting dangerous commands, cron jobs, extensions, and the tail of
// the gateway log. GET /api/events streams the same snapshot whenever it changes.

import { readFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { APPROVALS_SERVICE, CRON_SERVICE, errorMessage, EXTENSIONS_SERVICE, GATEWAY_AUTH_SERVICE, GATEWAY_SERVICE, HttpError, readJson, redactSecrets, type ApprovalsService, type CronService, type ExtensionApi, type ExtensionsService, type GatewayAuthService, type GatewayService } from 'agent/sdk'
import type { DashboardConfig } from './options.ts'
import type { Route } from './routes.ts'
import { EventStream } from './sse.ts'

const LOG_TAIL_BYTES = 64 * 1024
const LEVELS = ['debug', 'info', 'warn', 'error']
const SNAPSHOT_MS = 2000

export function registerGateway(api: ExtensionApi<DashboardConfig>, route: Route): void {
  const svc = <T>(name: string) => api.services.get<T>(name)
  const secrets = () => api.settings.secretValues()
  const fail = (error: unknown, status = 400): never => {
    if (HttpError.isInstance(error)) throw error
    throw new HttpError(status, redactSecrets(errorMessage(error), secrets()), { code: 'refused' })
  }

  const adapters = () => {
    const live = svc<GatewayService>(GATEWAY_SERVICE)
    const inProcess = live?.status() ?? []
    if (inProcess.length) return { where: 'this process', adapters: inProcess }
    try {
      const state = JSON.parse(readFileSync(join(api.settings.home, 'gateway_state.json'), 'utf8'))
      return { where: `gateway pid ${state.pid} (updated ${new Date(state.updatedAt).toISOString()})`, adapters: Array.isArray(state.adapters) ? state.adapters : [] }
    } catch {
      return { where: 'no gateway is running', adapters: [] }
    }
  }

  const snapshot = async () => {
    const auth = svc<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
    const approvals = svc<ApprovalsService>(APPROVALS_SERVICE)
    let cron: unknown[] = []
    let cronError: string | undefined
    try {
      cron = (await svc<CronService>(CRON_SERVICE)?.list()) ?? []
    } catch (error) {
      cronError = errorMessage(error)
    }
    return {
      gateway: adapters(),
      pairing: { pending: (await auth?.pending()) ?? [], approved: (await auth?.approved()) ?? [] },
      approvals: (approvals?.pending() ?? []).map((r) => ({ id: r.id, session_id: r.sessionId, platform: r.source?.platform ?? null, tool: r.tool, command: r.command, reasons: r.findings.map((f) => f.description), expires_at: r.expiresAt })),
      cron,
      cron_error: cronError ?? null,
      extensions: (svc<ExtensionsService>(EXTENSIONS_SERVICE)?.list() ?? []).map((e) => ({ name: e.name, version: e.version, source: e.source, state: e.state, reason: e.reason ?? null, fix: e.fix ?? null })),
    }
  }

  route('GET', '/api/gateway', 'read', async (ctx) => void (ctx.body = await snapshot()))

  route('GET', '/api/events', 'read', (ctx) => {
    const stream = new EventStream(ctx)
    let last = ''
    const tick = async () => {
      const text = JSON.stringify(await snapshot())
      if (text !== last) stream.send('gateway', JSON.parse((last = text)))
    }
    const send = () => void tick().catch((error) => api.log.warn(`gateway events: ${errorMessage(error)}`))
    send()
    const timer = setInterval(send, SNAPSHOT_MS)
    timer.unref()
    stream.onClose(() => clearInterval(timer))
    api.signal.addEventListener('abort', () => stream.end(), { once: true })
  })

  route('POST', '/api/pairing/approve', 'write', async (ctx) => {
    const body = await readJson<{ code?: unknown }>(ctx, 4096)
    if (typeof body.code !== 'string' || !body.code.trim()) throw new HttpError(400, 'code is required: the pairing code the user was sent', { param: 'code' })
    const auth = svc<GatewayAuthService>(GATEWAY_AUTH_SERVICE) ?? fail(new Error('gateway-auth is not loaded'), 503)
    try {
      ctx.body = await auth.approve(body.code.trim())
    } catch (error) {
      fail(error)
    }
  })

  route('POST', '/api/pairing/revoke', 'write', async (ctx) => {
    const body = await readJson<{ platform?: unknown; user_id?: unknown }>(ctx, 4096)
    if (typeof body.platform !== 'string' || typeof body.user_id !== 'string') throw new HttpError(400, 'platform and user_id are required')
    const auth = svc<GatewayAuthService>(GATEWAY_AUTH_SERVICE) ?? fail(new Error('gateway-auth is not loaded'), 503)
    ctx.body = { revoked: await auth.revoke(body.platform, body.user_id) }
  })

  const cronAction = (action: 'run' | 'pause' | 'resume') =>
    route('POST', `/api/cron/:id/${action}`, 'write', async (ctx) => {
      const cron = svc<CronService>(CRON_SERVICE) ?? fail(new Error('cron is not loaded'), 503)
      try {
        ctx.body = await cron[action](ctx.params.id!)
      } catch (error) {
        fail(error)
      }
    })
  cronAction('run')
  cronAction('pause')
  cronAction('resume')

  route('POST', '/api/extensions/:name/reload', 'write', async (ctx) => {
    const extensions = svc<ExtensionsService>(EXTENSIONS_SERVICE) ?? fail(new Error('no extensions service'), 503)
    if (ctx.params.name === 'dashboard') throw new HttpError(400, 'The dashboard cannot reload itself from the dashboard: use `agent extensions reload dashboard`')
    if (!extensions.list().some((e) => e.name === ctx.params.name)) throw new HttpError(404, `No extension ${ctx.params.name}`)
    ctx.body = await extensions.reload(ctx.params.name!)
  })

  route('GET', '/api/logs', 'read', async (ctx) => {
    const level = typeof ctx.query.level === 'string' && LEVELS.includes(ctx.query.level) ? ctx.query.level : 'debug'
    const min = LEVELS.indexOf(level)
    const lines = (await tail(join(api.settings.home, 'logs', 'gateway.log'))).filter((line) => {
      const found = /\b(debug|info|warn|error)\b/i.exec(line)?.[1]?.toLowerCase()
      return !found || LEVELS.indexOf(found) >= min
    })
    ctx.body = { level, lines: lines.slice(-500).map((l) => redactSecrets(l, secrets())) }
  })
}

/** The last lines of a file (its last 64 KB), or none when it does not exist. */
async function tail(path: string): Promise<string[]> {
  let handle
  try {
    handle = await open(path, 'r')
  } catch {
    return []
  }
  try {
    const { size } = await handle.stat()
    const length = Math.min(size, LOG_TAIL_BYTES)
    const buffer = Buffer.alloc(length)
    await handle.read(buffer, 0, length, size - length)
    const lines = buffer.toString('utf8').split('\n').filter(Boolean)
    return size > length ? lines.slice(1) : lines
  } finally {
    await handle.close()
  }
}
