// Per-provider connectivity: for the selected provider, every provider with credentials and every
// named custom endpoint, the real provider client asks the endpoint for its models, within a
// deadline. One line each: reachable (and whether the chosen model is listed) or why not.

import { errorMessage, type ModelResolveRequest, type ModelsService, type Settings } from 'agent/sdk'
import type { Report } from './report.ts'

export interface ProbeOutcome {
  ok: boolean
  models: string[]
  ms: number
  error?: string
}

export async function probe(models: ModelsService, request: ModelResolveRequest, timeoutMs: number): Promise<ProbeOutcome> {
  const started = Date.now()
  const signal = AbortSignal.timeout(timeoutMs)
  const deadline = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)), { once: true }))
  try {
    // A placeholder model keeps a client from probing on its own, without our deadline.
    const client = await Promise.race([models.resolve({ ...request, model: request.model ?? 'probe', fallback: false }), deadline])
    if (!client.listModels) return { ok: true, models: [], ms: Date.now() - started }
    const list = await Promise.race([client.listModels(signal), deadline])
    return { ok: true, models: list, ms: Date.now() - started }
  } catch (error) {
    return { ok: false, models: [], ms: Date.now() - started, error: errorMessage(error) }
  }
}

interface Target {
  label: string
  request: ModelResolveRequest
  /** The model that should be listed, when one is chosen. */
  model?: string
}

function customNames(settings: Settings): string[] {
  const raw = settings.get<unknown>('custom_providers')
  if (Array.isArray(raw)) return raw.map((e) => (e && typeof e === 'object' ? String((e as { name?: unknown }).name ?? '') : '')).filter(Boolean)
  if (raw && typeof raw === 'object') return Object.keys(raw)
  return []
}

export async function checkProviders(report: Report, models: ModelsService, settings: Settings, timeoutMs: number): Promise<void> {
  const section = 'Providers'
  const targets: Target[] = []
  let selected: string | undefined
  try {
    const s = models.select()
    selected = s.customName ? `custom:${s.customName}` : s.provider
    targets.push({ label: `${selected} (selected)`, request: { provider: selected }, model: s.model || undefined })
  } catch (error) {
    report.add(section, 'selected provider', 'fail', errorMessage(error), 'run `agent model`')
  }
  const statuses = models.providers()
  for (const p of statuses) {
    if (p.name === selected || p.configured !== true) continue
    if (p.name === 'custom') continue // the unnamed custom endpoint is only checked when selected
    targets.push({ label: p.name, request: { provider: p.name } })
  }
  for (const name of customNames(settings)) {
    if (`custom:${name}` === selected) continue
    targets.push({ label: `custom:${name}`, request: { provider: `custom:${name}` } })
  }
  const results = await Promise.all(targets.map(async (t) => ({ t, r: await probe(models, t.request, timeoutMs) })))
  for (const { t, r } of results) {
    if (!r.ok) {
      report.add(section, t.label, 'fail', `unreachable: ${r.error}`, 'check the endpoint, its key and your network (`agent model` to change)')
      continue
    }
    const listed = r.models.length ? `, ${r.models.length} model${r.models.length === 1 ? '' : 's'}` : ''
    if (t.model && r.models.length && !r.models.includes(t.model)) {
      report.add(section, t.label, 'warn', `reachable in ${r.ms} ms${listed}, but "${t.model}" is not among them`, 'pick a listed model with `agent model`')
    } else {
      report.add(section, t.label, 'ok', `reachable in ${r.ms} ms${listed}${t.model ? `; model ${t.model}` : ''}`)
    }
  }
  const unconfigured = statuses.filter((p) => p.configured !== true && p.name !== selected)
  if (unconfigured.length) report.add(section, 'others', 'info', `${unconfigured.length} providers without credentials (agent model --list)`)
}
