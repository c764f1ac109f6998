// The offline checks of `agent doctor` and `agent status`: runtime, home and config, extensions,
// model selection, tools and their backends (keys), the gateway and state.db.

import { execFileSync } from 'node:child_process'
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { backendChoices, closestNames, DATABASE_SERVICE, errorMessage, EXTENSIONS_SERVICE, MODELS_SERVICE, PROJECT_CONFIG_SERVICE, type CliContext, type DatabaseService, type ExtensionInfo, type ExtensionsService, type ModelsService, type ProjectConfigService } from 'agent/sdk'
import type { Report } from './report.ts'

type Ctx = Pick<CliContext, 'settings' | 'services' | 'tools' | 'adapters' | 'extensions'>

export function checkEnvironment(report: Report, ctx: Ctx): void {
  const s = 'Environment'
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
  const nodeOk = major > 20 || (major === 20 && minor >= 19)
  report.add(s, 'node', nodeOk ? 'ok' : 'fail', `v${process.versions.node}`, nodeOk ? undefined : 'install Node.js 20.19 or newer')
  const home = ctx.settings.home
  try {
    accessSync(home, constants.W_OK)
    report.add(s, 'home', 'ok', home)
  } catch {
    report.add(s, 'home', existsSync(home) ? 'fail' : 'warn', `${home} ${existsSync(home) ? 'is not writable' : 'does not exist yet'}`, existsSync(home) ? 'fix its permissions' : 'it is created on first use')
  }
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore', timeout: 5000 })
    report.add(s, 'git', 'ok', 'installed (checkpoints, --worktree)')
  } catch {
    report.add(s, 'git', 'warn', 'not installed: checkpoints and --worktree are off', 'install git')
  }
}

export async function checkConfig(report: Report, ctx: Ctx): Promise<void> {
  const s = 'Configuration'
  const path = ctx.settings.configPath
  report.add(s, 'config.yaml', existsSync(path) ? 'ok' : 'info', existsSync(path) ? path : `${path} (not created yet: defaults apply)`)
  const migration = ctx.services.get<{ check(interactive: boolean, warn: (t: string) => void): Promise<boolean> }>('config-migration')
  if (migration && existsSync(path)) {
    const notes: string[] = []
    const current = await migration.check(false, (t) => notes.push(t))
    report.add(s, 'config version', current ? 'ok' : 'warn', current ? 'current' : (notes[0] ?? 'older than this agent').split('; settings added')[0]!, 'run `agent config migrate` in a terminal')
  }
  // A project config that was ignored (no opt-in) or only partly applied says so, naming file and keys.
  const project = ctx.services.get<ProjectConfigService>(PROJECT_CONFIG_SERVICE)?.status()
  if (project) report.add(s, 'project config', project.notice ? 'warn' : 'ok', project.notice ?? `${project.path} (applied)`)
  const envPath = ctx.settings.envPath
  if (existsSync(envPath)) {
    const mode = statSync(envPath).mode & 0o777
    const open = (mode & 0o077) !== 0
    report.add(s, '.env', open ? 'warn' : 'ok', `${envPath} (mode ${mode.toString(8).padStart(3, '0')})`, open ? `chmod 600 ${envPath}` : undefined)
  }
  // The kernel's own settings have no extension to fail: check them here (kernel/setting-check.ts).
  const disabled = ctx.services.get<ExtensionsService>(EXTENSIONS_SERVICE)?.checkSetting('extensions.disabled', ctx.settings.get('extensions.disabled')) ?? []
  if (disabled.length) report.add(s, 'extensions.disabled', 'fail', `${disabled.join('; ')} (ignored: nothing is disabled)`, `make it a list in ${path}, e.g. [mcp]`)
  // A top-level section nothing reads is most often a typo (`aprovals:`): it is silently without effect.
  const sections = ctx.services.get<ExtensionsService>(EXTENSIONS_SERVICE)?.settingSections().map((k) => k.split('.')[0]!) ?? []
  for (const top of sections.length ? Object.keys(ctx.settings.all()).filter((k) => !k.startsWith('_') && !sections.includes(k)) : []) {
    const near = closestNames(top, [...new Set(sections)])[0]
    report.add(s, top, 'warn', `no loaded extension reads "${top}"${near ? ` (did you mean "${near}"?)` : ''}`, near ? `rename it to ${near} in ${path}` : 'remove it, or install the plugin that reads it')
  }
  const web = ctx.settings.get<unknown>('web.backend')
  const choices = backendChoices(ctx.tools.list())
  for (const choice of choices) {
    const value = ctx.settings.get<string>(choice.setting)
    if (value !== undefined && !choice.options.some((o) => o.value === value)) {
      report.add(s, choice.setting, 'fail', `"${value}" is not one of ${choice.options.map((o) => o.value).join(', ')}`, `agent config set ${choice.setting} <${choice.options.map((o) => o.value).join('|')}>`)
    }
  }
  if (web !== undefined && !choices.some((c) => c.setting === 'web.backend')) report.add(s, 'web.backend', 'info', `${String(web)} (no loaded tool reads it)`)
}

export function checkExtensions(report: Report, ctx: Ctx): void {
  const s = 'Extensions'
  const all = ctx.extensions()
  const loaded = all.filter((e) => e.state === 'loaded')
  report.add(s, 'loaded', 'ok', `${loaded.length} (${loaded.map((e) => e.name).sort().join(', ')})`)
  const config = ctx.settings.configPath
  // A guard that is not loaded makes its tools refuse (kernel/guards.ts): say which, and how to fix it.
  const refused = (e: ExtensionInfo) => (e.guards?.length ? `; refused until fixed: ${e.guards.join(', ')}` : '')
  for (const e of all.filter((x) => x.state === 'failed')) {
    const fix = e.reason?.startsWith(config) ? `correct it in ${config}, or use agent config set <key> <value> (it checks the value)` : (e.fix ?? `see ${e.path}`)
    report.add(s, e.name, 'fail', `failed: ${e.reason ?? 'unknown reason'}${refused(e)}`, fix)
  }
  for (const e of all.filter((x) => x.state === 'disabled')) report.add(s, e.name, e.guards?.length ? 'warn' : 'info', `${e.reason ?? 'disabled'}${refused(e)}`, e.fix)
}

export function checkModel(report: Report, ctx: Ctx): ModelsService | undefined {
  const s = 'Model'
  const models = ctx.services.get<ModelsService>(MODELS_SERVICE)
  if (!models) {
    report.add(s, 'model resolver', 'fail', 'not loaded (extension model-resolver)', 'check `agent extensions list`')
    return undefined
  }
  try {
    const sel = models.select()
    const name = sel.customName ? `custom:${sel.customName}` : sel.provider
    report.add(s, 'provider', 'ok', `${name} (from ${sel.source})${sel.baseUrl ? ` at ${sel.baseUrl}` : ''}`)
    report.add(s, 'model', sel.model ? 'ok' : 'info', sel.model || "the provider's default (or what the endpoint serves)")
  } catch (error) {
    report.add(s, 'provider', 'fail', errorMessage(error), 'run `agent model`')
  }
  const effort = ctx.settings.get<string>('agent.reasoning_effort')
  if (effort) report.add(s, 'reasoning effort', 'info', effort)
  return models
}

export function checkTools(report: Report, ctx: Ctx): void {
  const s = 'Tools'
  const entries = ctx.tools.entries()
  const unavailable: Array<[string, string]> = []
  for (const { value } of entries) {
    let available: true | string = true
    try {
      available = value.available?.(ctx.settings) ?? true
    } catch (error) {
      available = errorMessage(error)
    }
    if (available !== true) unavailable.push([value.name, available])
  }
  report.add(s, 'registered', entries.length ? 'ok' : 'warn', `${entries.length} tools, ${entries.length - unavailable.length} usable now`)
  for (const [name, why] of unavailable) report.add(s, name, 'warn', `unavailable: ${why}`)
  for (const choice of backendChoices(ctx.tools.list())) {
    const value = ctx.settings.get<string>(choice.setting)
    for (const option of choice.options) {
      const key = option.envKeys.find((k) => ctx.settings.env(k))
      const chosen = value === option.value
      const verdict = key || option.envKeys.length === 0 ? 'ok' : chosen ? 'fail' : 'info'
      const detail = `${option.envKeys.length === 0 ? 'no key needed' : key ? `${key} set` : `${option.envKeys[0]} missing`}${chosen ? ' (selected)' : ''}`
      report.add(s, `${choice.setting}=${option.value}`, verdict, detail, verdict === 'fail' ? `agent config set ${option.envKeys[0]} <key>` : undefined)
    }
  }
}

export function gatewayState(home: string): { running: boolean; pid?: number; detail: string } {
  const path = join(home, 'gateway.pid')
  if (!existsSync(path)) return { running: false, detail: 'not running' }
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as { pid?: number }
    if (!record.pid) return { running: false, detail: 'not running (unreadable PID file)' }
    process.kill(record.pid, 0)
    return { running: true, pid: record.pid, detail: `running (pid ${record.pid})` }
  } catch {
    return { running: false, detail: 'not running (stale PID file)' }
  }
}

export function checkGateway(report: Report, ctx: Ctx): void {
  const s = 'Gateway'
  const state = gatewayState(ctx.settings.home)
  report.add(s, 'gateway', state.running ? 'ok' : 'info', state.detail)
  const adapters = ctx.adapters.list()
  const enabled = adapters.filter((a) => {
    try {
      return a.enabled(ctx.settings)
    } catch {
      return false
    }
  })
  report.add(s, 'adapters', 'info', `${enabled.length ? `enabled: ${enabled.map((a) => a.name).join(', ')}` : 'none enabled'}; available: ${adapters.map((a) => a.name).join(', ') || 'none'}`)
}

export function checkState(report: Report, ctx: Ctx): void {
  const s = 'Storage'
  const database = ctx.services.get<DatabaseService>(DATABASE_SERVICE)
  if (!database) return report.add(s, 'state.db', 'warn', 'the state-db extension is not loaded: no sessions are stored')
  if (!existsSync(database.path)) return report.add(s, 'state.db', 'info', `${database.path} (created on first use)`)
  try {
    const result = database.db().pragma('quick_check', { simple: true })
    report.add(s, 'state.db', result === 'ok' ? 'ok' : 'fail', result === 'ok' ? `${database.path} (integrity ok)` : `integrity check: ${String(result)}`, result === 'ok' ? undefined : 'restore it from a backup, or move it aside to start fresh')
  } catch (error) {
    report.add(s, 'state.db', 'fail', `cannot open: ${errorMessage(error)}`)
  }
}
