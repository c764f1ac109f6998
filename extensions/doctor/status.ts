// `agent status`: home, model, providers, tools, gateway and sessions at a glance; offline unless
// --check, which adds the provider connectivity lines of `agent doctor`.

import { existsSync } from 'node:fs'
import { DATABASE_SERVICE, MODELS_SERVICE, SESSIONS_SERVICE, STORAGE_SERVICE, errorMessage, type CliContext, type DatabaseService, type ModelsService, type SessionStore, type StorageService } from 'agent/sdk'
import { gatewayState } from './checks.ts'
import { checkProviders } from './connectivity.ts'
import { within } from './database.ts'
import { timeoutOf } from './doctor.ts'
import { Report } from './report.ts'

export async function runStatus(ctx: CliContext): Promise<number> {
  const models = ctx.services.get<ModelsService>(MODELS_SERVICE)
  let model: Record<string, unknown> = { configured: false }
  try {
    if (models) {
      const s = models.select()
      model = { configured: true, provider: s.customName ? `custom:${s.customName}` : s.provider, model: s.model || null, source: s.source, ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}) }
    }
  } catch (error) {
    model = { configured: false, reason: errorMessage(error) }
  }
  const providers = models?.providers() ?? []
  const configured = providers.filter((p) => p.configured === true).map((p) => p.name)
  const tools = ctx.tools.entries()
  const usable = tools.filter(({ value }) => {
    try {
      return (value.available?.(ctx.settings) ?? true) === true
    } catch {
      return false
    }
  }).length
  const gateway = gatewayState(ctx.settings.home)
  const enabledAdapters = ctx.adapters.list().filter((a) => {
    try {
      return a.enabled(ctx.settings)
    } catch {
      return false
    }
  })
  let sessions: Record<string, unknown> | undefined
  const store = ctx.services.get<SessionStore>(SESSIONS_SERVICE)
  const database = ctx.services.get<DatabaseService>(DATABASE_SERVICE)
  const storage = ctx.services.get<StorageService>(STORAGE_SERVICE)
  // Where the shared state lives; naming it opens nothing (the pool connects on first query).
  const backend = !storage ? { backend: null } : storage.backend === 'postgres' ? { backend: 'postgres', url: storage.postgres().label } : { backend: 'sqlite', path: database?.path ?? null }
  // Status never creates state.db: no file, no sessions (on PostgreSQL the sessions are on the server).
  if (store && database && backend.backend === 'sqlite' && !existsSync(database.path)) sessions = { count: 0 }
  else if (store) {
    try {
      // A server that does not answer must not hold status up longer than a connectivity check would.
      const latest = await within(store.latest({}), timeoutOf(ctx))
      const list = await within(store.list({ limit: 1000 }), timeoutOf(ctx))
      sessions = { count: list.length >= 1000 ? '1000+' : list.length, ...(latest ? { latest: { id: latest.id, title: latest.title ?? null, updatedAt: new Date(latest.updatedAt).toISOString() } } : {}) }
    } catch (error) {
      sessions = { error: errorMessage(error) }
    }
  }
  const failed = ctx.extensions().filter((e) => e.state === 'failed')
  const report = new Report()
  if (ctx.argv.check && models) await checkProviders(report, models, ctx.settings, timeoutOf(ctx))

  if (ctx.argv.json) {
    ctx.json({
      home: ctx.settings.home,
      model,
      providers: { configured },
      tools: { registered: tools.length, usable },
      gateway: { running: gateway.running, ...(gateway.pid ? { pid: gateway.pid } : {}), adapters: enabledAdapters.map((a) => a.name) },
      storage: backend,
      sessions: sessions ?? null,
      extensions: { loaded: ctx.extensions().filter((e) => e.state === 'loaded').length, failed: failed.map((e) => ({ name: e.name, reason: e.reason })) },
      ...(ctx.argv.check ? { connectivity: report.lines.map(({ subject, verdict, detail }) => ({ provider: subject, verdict, detail })) } : {}),
    })
    return report.count('fail') ? 1 : 0
  }
  const row = (label: string, value: string) => ctx.out(`${(label + ':').padEnd(12)}${value}`)
  row('home', ctx.settings.home)
  row('model', model.configured ? `${model.provider}:${model.model ?? '(default)'} (from ${model.source})${model.baseUrl ? ` at ${model.baseUrl}` : ''}` : `not configured${model.reason ? `: ${model.reason}` : ''}`)
  row('providers', configured.length ? `${configured.length} with credentials (${configured.join(', ')})` : 'none with credentials')
  row('tools', `${tools.length} registered, ${usable} usable now`)
  row('gateway', `${gateway.detail}; adapters enabled: ${enabledAdapters.map((a) => a.name).join(', ') || 'none'}`)
  row('storage', backend.backend === 'postgres' ? `PostgreSQL at ${backend.url}` : backend.backend === 'sqlite' ? `SQLite ${backend.path ?? 'state.db'}` : 'not loaded (see agent doctor)')
  if (sessions) row('sessions', sessions.error ? `unavailable: ${sessions.error}` : `${sessions.count} stored${sessions.latest ? `, latest ${(sessions.latest as { id: string }).id}` : ''}`)
  row('extensions', `${ctx.extensions().filter((e) => e.state === 'loaded').length} loaded${failed.length ? `, ${failed.length} failed (${failed.map((e) => e.name).join(', ')}; see agent doctor)` : ''}`)
  if (ctx.argv.check) {
    ctx.out('')
    report.print(ctx, ctx.isTTY && !ctx.settings.env('NO_COLOR'))
  }
  return report.count('fail') ? 1 : 0
}
