// createKernel: the registries, the hook table, the services, and the life of every extension —
// discovered, imported, validated, set up into a staged record, committed, hot-swapped, unloaded.
// A failing extension is isolated and reported; it never takes the process down.

import { join } from 'node:path'
import { AgentError, errorMessage } from '../sdk/errors.ts'
import type { HookHandles } from '../sdk/hooks.ts'
import { deliverObservations } from '../sdk/observe.ts'
import { CONFIG_MIGRATION_SERVICE, EXTENSIONS_SERVICE, PROJECT_CONFIG_SERVICE, type ConfigMigrationService, type ExtensionsService, type ProjectConfigService } from '../sdk/services.ts'
import type { ExtensionDefinition, ExtensionInfo, ExtensionSource, Logger, RunMode, Services } from '../sdk/types.ts'
import { resolveAgentHome, homePaths } from './config/home.ts'
import { FileSettings } from './config/settings.ts'
import { PROJECT_SETTINGS } from './config/project.ts'
import { validateConfig } from './config/validate.ts'
import { checkConfigVersion } from './config/migrate.ts'
import { createExtensionApi, createStaged, hookHandles, serviceLookup, whenSettled, type KernelRegistries, type RegistryKind, type ServiceEntry, type StagedRecord } from './extension-api.ts'
import { HookTable } from './hooks.ts'
import { declaredGuards, fixFor, GuardTable } from './guards.ts'
import { kernelSettingProblems, KERNEL_SETTINGS, settingDefaults, settingProblems, settingSchema, type ConfigOwner } from './setting-check.ts'
import { discoverFolder, discoverPlugins, type Candidate } from './loader/discover.ts'
import { importDefinition } from './loader/import.ts'
import { AGENT_ROOT } from './loader/jiti.ts'
import { buildVersion, sealLoaded, unseal } from './loader/version.ts'
import { createLogger, envLevel, LogRoute, type LogLevel, type LogSink } from './log.ts'
import { installProcessGuard } from './process-guard.ts'
import { Registry } from './registry.ts'
import { ExtensionWatching } from './watching.ts'
import { topoSort } from './loader/order.ts'

export interface InlineExtension {
  definition: ExtensionDefinition<any>
  source?: ExtensionSource
  path?: string
}

export interface KernelOptions {
  home?: string
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** Folder of built-in extensions; false for none. Default: this agent's extensions/. */
  builtinsDir?: string | false
  /** Load only these built-ins (a gateway running only the adapters chosen, tests). */
  builtins?: readonly string[]
  /** Also discover project-local extensions in <cwd>/.agent/extensions (explicit opt-in). */
  projectExtensions?: boolean
  /** Extensions given as objects (tests, embedding). */
  inline?: readonly InlineExtension[]
  setupTimeoutMs?: number
  /** How long an old version's in-flight calls may take to settle after a swap. */
  drainTimeoutMs?: number
  logSink?: LogSink
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  /** Long-running modes catch unhandled rejections and uncaught exceptions and isolate the
   * extension that owns them (kernel/process-guard.ts). For the CLI process; off in embeddings. */
  processGuard?: boolean
}

interface ExtensionRecord {
  info: ExtensionInfo
  candidate?: Candidate
  definition?: ExtensionDefinition<any>
  staged?: StagedRecord
}

export interface ReloadResult {
  name: string
  ok: boolean
  reason?: string
}

export interface Kernel {
  readonly home: string
  readonly settings: FileSettings
  readonly registries: KernelRegistries
  readonly hooks: HookHandles
  readonly services: Omit<Services, 'provide'>
  readonly log: Logger
  /** Discovers and loads every extension. */
  load(): Promise<void>
  /** Loads one extension definition (inline, tests). */
  add(extension: InlineExtension): Promise<ExtensionInfo>
  extensions(): ExtensionInfo[]
  /** Rebuilds an extension from its files and swaps it in only if that worked. */
  reload(name: string): Promise<ReloadResult>
  unload(name: string): Promise<void>
  /** Marks a loaded extension failed and removes its registrations, keeping its record. */
  isolate(name: string, reason: string): Promise<boolean>
  /** Fires `ready`; long-running modes also turn on hot reload. */
  start(mode: RunMode): Promise<void>
  /** Starts watching extension folders (idempotent). */
  watch(): Promise<void>
  shutdown(reason?: string): Promise<void>
  /** Folders whose changes reload extensions. */
  watchRoots(): string[]
  /** Sends every log line to `sink` (at `level` unless AGENT_LOG_LEVEL says otherwise) until the returned function runs. */
  routeLogs(sink: LogSink, level?: LogLevel): () => void
}

export function createKernel(options: KernelOptions = {}): Kernel {
  const home = options.home ?? resolveAgentHome(options.env)
  const paths = homePaths(home)
  const cwd = options.cwd ?? process.cwd()
  const settings = new FileSettings({ home, env: options.env, projectDir: cwd, projectOptIn: options.projectExtensions })
  const secrets = () => settings.secretValues()
  const logRoute = new LogRoute(options.logLevel ?? envLevel(options.env ?? process.env), options.logSink)
  const logFor = (prefix: string) => createLogger(prefix, { sink: logRoute.out, level: logRoute.level, secrets })
  const log = logFor('kernel')
  if (settings.projectStatus?.notice) log.warn(settings.projectStatus.notice)
  const builtinsDir = options.builtinsDir === false ? undefined : (options.builtinsDir ?? join(AGENT_ROOT, 'extensions'))
  const setupTimeoutMs = options.setupTimeoutMs ?? 10_000
  const drainTimeoutMs = options.drainTimeoutMs ?? 5_000

  const registries: KernelRegistries = {
    tools: new Registry<any>('tool', (t) => t.name),
    providers: new Registry<any>('provider', (p) => p.name, (p) => p.aliases ?? []),
    commands: new Registry<any>('command', (c) => c.name, (c) => c.aliases ?? []),
    adapters: new Registry<any>('adapter', (a) => a.name),
    endpoints: new Registry<any>('endpoint', (e) => `${e.listener} ${e.method} ${e.path}`),
  }
  const hookTable = new HookTable(log)
  const services = new Map<string, ServiceEntry>()
  // The kernel's own services: what extensions may ask of the kernel without importing it.
  services.set(CONFIG_MIGRATION_SERVICE, {
    owner: 'kernel',
    value: { check: (interactive, warn, opts) => checkConfigVersion(settings, { interactive, warn, stamp: opts?.stamp }) } satisfies ConfigMigrationService,
  })
  services.set(PROJECT_CONFIG_SERVICE, { owner: 'kernel', value: { status: () => settings.projectStatus } satisfies ProjectConfigService })
  const records = new Map<string, ExtensionRecord>()
  const guards = new GuardTable((name) => records.get(name)?.info)
  hookTable.add([guards.tap()])
  services.set(EXTENSIONS_SERVICE, {
    owner: 'kernel',
    value: {
      list: () => extensions(),
      reload: (name: string) => serialized(() => reloadNow(name)),
      unload: (name: string) => serialized(() => unloadNow(name)),
      checkSetting: (path: string, value: unknown) => settingProblems(configOwners(), (key) => settings.get(key), path, value),
      settingSchema: (path: string) => settingSchema(configOwners(), path),
      settingDefaults: () => settingDefaults(configOwners()),
      settingSections: () => [...new Set(configOwners().map((o) => o.key))],
    } satisfies ExtensionsService,
  })
  const loadOrder: string[] = []
  let queue: Promise<unknown> = Promise.resolve()
  let startedMode: RunMode | undefined
  let removeProcessGuard: (() => void) | undefined

  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn)
    queue = run.catch(() => undefined)
    return run
  }

  const extensions = (): ExtensionInfo[] =>
    [...records.values()].map((r) => {
      const guarded = guards.toolsOf(r.info.name)
      return guarded ? { ...r.info, guards: [...guarded] } : { ...r.info }
    })

  const configOwners = (): ConfigOwner[] => [
    ...KERNEL_SETTINGS,
    ...PROJECT_SETTINGS,
    ...[...records.values()].flatMap((r) => (r.definition?.config ? [{ key: r.definition.configKey ?? `extensions.${r.definition.name}`, schema: r.definition.config }] : [])),
    ...[...records.values()].flatMap((r) => Object.entries(r.definition?.settings ?? {}).map(([key, schema]) => ({ key, schema }))),
  ]

  function fail(record: ExtensionRecord, reason: string, error?: unknown): void {
    record.info.state = 'failed'
    record.info.reason = reason
    record.info.fix = fixFor(record.info.name, 'failed', settings.configPath, error)
    log.error(`extension "${record.info.name}" failed: ${reason}`)
  }

  /** Runs setup into a staged record; resolves with it, or throws a one-line reason. */
  async function build(definition: ExtensionDefinition<any>): Promise<StagedRecord> {
    const name = definition.name
    for (const dep of definition.dependsOn ?? []) {
      const depRecord = records.get(dep)
      if (!depRecord) throw new AgentError('E_DEPENDENCY', `depends on "${dep}", which is not installed`)
      if (depRecord.info.state !== 'loaded') throw new AgentError('E_DEPENDENCY', `depends on "${dep}", which is ${depRecord.info.state}`)
    }
    const configKey = definition.configKey ?? `extensions.${name}`
    const config = definition.config ? validateConfig(definition.config, settings.get(configKey), { file: settings.configPath, key: configKey }) : ((settings.get(configKey) as Record<string, unknown>) ?? {})
    const staged = createStaged()
    const api = createExtensionApi(
      { owner: name, version: definition.version ?? '0.0.0', config, log: logFor(name), settings, registries, hooks: hookTable, services, extensions },
      staged,
    )
    const timeoutMs = definition.setupTimeoutMs ?? setupTimeoutMs
    let timer: NodeJS.Timeout | undefined
    try {
      const result = await Promise.race([
        Promise.resolve().then(() => definition.setup(api)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new AgentError('E_TIMEOUT', `setup did not finish within ${timeoutMs} ms`)), timeoutMs)
        }),
      ])
      if (typeof result === 'function') staged.disposers.push(result)
      for (const reg of staged.registrations) registries[reg.kind].assertFree(name, reg.item)
      return staged
    } catch (error) {
      await discard(staged)
      throw error
    } finally {
      clearTimeout(timer)
      staged.open = false
    }
  }

  /** Tears a version down: drop subscriptions, let in-flight calls settle, abort, run disposers LIFO. */
  async function discard(staged: StagedRecord, drain = false): Promise<void> {
    staged.open = false
    for (const sub of staged.subscriptions.splice(0)) registries[sub.kind].unsubscribe(sub.listener)
    // Calls already running finish on this version (bounded); only then is it told to stop.
    if (drain) await whenSettled(staged, drainTimeoutMs)
    staged.controller.abort(new AgentError('E_INTERRUPTED', 'extension unloaded'))
    for (const dispose of staged.disposers.splice(0).reverse()) {
      try {
        await dispose()
      } catch (error) {
        log.warn(`a disposer failed: ${errorMessage(error)}`)
      }
    }
  }

  /** Swaps a built version in, in one synchronous step, so no caller sees a half-registered extension. */
  function commit(name: string, staged: StagedRecord): void {
    for (const registry of Object.values(registries)) registry.deleteByOwner(name, false)
    for (const [service, entry] of [...services]) if (entry.owner === name) services.delete(service)
    for (const [service, value] of staged.services) services.set(service, { owner: name, value })
    hookTable.replaceOwner(name, staged.taps)
    for (const reg of staged.registrations) registries[reg.kind].add(name, reg.item)
    for (const registry of Object.values(registries)) registry.changed()
  }

  async function setupRecord(record: ExtensionRecord): Promise<void> {
    const definition = record.definition
    if (!definition || record.info.state === 'failed') return
    try {
      guards.note(definition.name, declaredGuards(definition))
    } catch (error) {
      return fail(record, errorMessage(error), error)
    }
    if (isDisabled(record.info.name)) {
      record.info.state = 'disabled'
      record.info.reason = 'disabled in config (extensions.disabled)'
      record.info.fix = fixFor(record.info.name, 'disabled', settings.configPath)
      return
    }
    try {
      const staged = await build(definition)
      commit(definition.name, staged)
      record.staged = staged
      record.info.state = 'loaded'
      delete record.info.reason
      delete record.info.fix
      if (!loadOrder.includes(definition.name)) loadOrder.push(definition.name)
    } catch (error) {
      fail(record, errorMessage(error), error)
    }
  }

  function isDisabled(name: string): boolean {
    const disabled = settings.get<unknown>('extensions.disabled')
    return Array.isArray(disabled) && disabled.includes(name)
  }

  /** `whole`: a folder found while running is built whole too, as a reload would be. */
  async function importRecord(candidate: Candidate, whole = false): Promise<ExtensionRecord> {
    const record: ExtensionRecord = { info: { name: candidate.name, version: '0.0.0', source: candidate.source, state: 'failed', path: candidate.dir }, candidate }
    try {
      const definition = await importDefinition(candidate, whole ? buildVersion(candidate.dir) : undefined)
      record.definition = definition
      record.info.name = definition.name
      record.info.version = definition.version ?? '0.0.0'
      record.info.state = 'loaded'
    } catch (error) {
      record.info.state = 'failed'
      record.info.reason = errorMessage(error)
    }
    return record
  }

  function registerRecord(record: ExtensionRecord): boolean {
    const existing = records.get(record.info.name)
    if (existing) {
      fail(record, `an extension named "${record.info.name}" is already loaded from ${existing.info.source} (${existing.info.path})`)
      records.set(`${record.info.name}@${record.info.source}:${record.info.path}`, record)
      return false
    }
    records.set(record.info.name, record)
    return true
  }

  function candidates(): { list: Candidate[]; problems: Array<{ name: string; path: string; reason: string }> } {
    const list: Candidate[] = []
    if (builtinsDir) {
      const found = discoverFolder(builtinsDir, 'builtin')
      list.push(...(options.builtins ? found.filter((c) => options.builtins!.includes(c.name)) : found))
    }
    list.push(...discoverFolder(paths.extensions, 'user'))
    const plugins = discoverPlugins(paths.plugins)
    list.push(...plugins.candidates)
    if (settings.projectOptIn) list.push(...discoverFolder(join(cwd, '.agent', 'extensions'), 'project'))
    return { list, problems: plugins.problems }
  }

  async function load(): Promise<void> {
    await serialized(async () => {
      for (const line of kernelSettingProblems((key) => settings.get(key))) log.error(`${settings.configPath}: ${line} (ignored: nothing is disabled)`)
      const { list, problems } = candidates()
      for (const problem of problems) {
        records.set(problem.name, { info: { name: problem.name, version: '0.0.0', source: 'plugin', state: 'failed', reason: problem.reason, path: problem.path } })
        log.error(`plugin "${problem.name}" failed: ${problem.reason}`)
      }
      const imported = await Promise.all(list.map((c) => importRecord(c)))
      for (const inline of options.inline ?? []) imported.push(inlineRecord(inline))
      const accepted = imported.filter(registerRecord)
      for (const record of accepted) if (record.info.state === 'failed') log.error(`extension "${record.info.name}" failed: ${record.info.reason}`)
      for (const record of topoSort(accepted)) await setupRecord(record)
    })
  }

  function inlineRecord(inline: InlineExtension): ExtensionRecord {
    const definition = inline.definition
    return { info: { name: definition.name, version: definition.version ?? '0.0.0', source: inline.source ?? 'user', state: 'loaded', path: inline.path ?? '<inline>' }, definition }
  }

  async function add(inline: InlineExtension): Promise<ExtensionInfo> {
    return serialized(async () => {
      const record = inlineRecord(inline)
      if (registerRecord(record)) await setupRecord(record)
      return { ...record.info }
    })
  }

  async function reloadNow(name: string): Promise<ReloadResult> {
    // A plugin may be named by its package (before loading) or by its extension name (after).
    const record = records.get(name) ?? [...records.values()].find((r) => r.candidate?.name === name)
    if (record && record.info.name !== name) return reloadNow(record.info.name)
    if (!record?.candidate) {
      // A new folder: discover it.
      const candidate = candidates().list.find((c) => c.name === name)
      if (!candidate) return { name, ok: false, reason: 'no such extension' }
      const fresh = await importRecord(candidate, true)
      if (!registerRecord(fresh)) return { name, ok: false, reason: fresh.info.reason }
      await setupRecord(fresh)
      if (fresh.staged) await replayReady(name, fresh.staged)
      return { name, ok: fresh.info.state === 'loaded', reason: fresh.info.reason }
    }
    let definition: ExtensionDefinition<any>
    let staged: StagedRecord
    let guarded: string[] | undefined
    try {
      // Built whole (every file compiled) before the swap; the running version keeps its own modules.
      definition = await importDefinition(record.candidate, buildVersion(record.candidate.dir))
      if (definition.name !== record.info.name) throw new AgentError('E_EXTENSION', `the extension's name changed from "${record.info.name}" to "${definition.name}"; restart to rename`)
      guarded = declaredGuards(definition)
      // With no version left running, what the new one guards refuses even if it fails to build.
      if (!record.staged) guards.note(name, guarded ?? guards.toolsOf(name))
      staged = await build(definition)
    } catch (error) {
      const reason = errorMessage(error)
      if (record.staged) {
        log.error(`reload of "${name}" failed, keeping the previous version: ${reason}`)
        record.info.reason = `reload failed (previous version still running): ${reason}`
      } else {
        fail(record, reason, error)
      }
      return { name, ok: false, reason }
    }
    const previous = record.staged
    commit(name, staged)
    guards.note(name, guarded)
    record.definition = definition
    record.staged = staged
    record.info.state = 'loaded'
    record.info.version = definition.version ?? '0.0.0'
    delete record.info.reason
    delete record.info.fix
    if (!loadOrder.includes(name)) loadOrder.push(name)
    log.info(`reloaded "${name}"`)
    if (previous) await discard(previous, true)
    unseal(record.candidate.dir)
    await replayReady(name, staged)
    return { name, ok: true }
  }

  /** An extension (re)loaded after start gets the `ready` it missed: its own taps only. */
  async function replayReady(name: string, staged: StagedRecord): Promise<void> {
    if (!startedMode) return
    for (const tap of staged.taps.filter((t) => t.hook === 'ready').sort((a, b) => a.stage - b.stage)) {
      try {
        await tap.fn({ mode: startedMode })
      } catch (error) {
        log.error(`extension "${name}": ready after reload failed: ${errorMessage(error)}`)
      }
    }
  }

  async function teardown(name: string, record: ExtensionRecord): Promise<void> {
    if (!record.staged) return
    const staged = record.staged
    delete record.staged
    for (const registry of Object.values(registries)) registry.deleteByOwner(name)
    for (const [service, entry] of [...services]) if (entry.owner === name) services.delete(service)
    hookTable.removeOwner(name)
    await discard(staged, true)
  }

  async function isolateNow(name: string, reason: string): Promise<boolean> {
    const record = records.get(name)
    if (!record || record.info.state !== 'loaded') return false
    fail(record, reason)
    await teardown(name, record)
    loadOrder.splice(loadOrder.indexOf(name) >>> 0, loadOrder.includes(name) ? 1 : 0)
    return true
  }

  async function unloadNow(name: string): Promise<void> {
    const record = records.get(name)
    if (!record) return
    await teardown(name, record)
    if (record.candidate) unseal(record.candidate.dir)
    records.delete(name)
    loadOrder.splice(loadOrder.indexOf(name) >>> 0, loadOrder.includes(name) ? 1 : 0)
  }

  const kernelHooks = hookHandles(hookTable, undefined, 'kernel')

  const watchRoots = (): string[] => {
    const roots = new Set<string>([paths.extensions])
    for (const record of records.values()) if (record.candidate && record.candidate.source !== 'user') roots.add(record.candidate.dir)
    return [...roots]
  }

  const kernel: Kernel = {
    home,
    settings,
    registries,
    hooks: kernelHooks,
    services: serviceLookup(services),
    log,
    load,
    add,
    extensions,
    reload: (name) => serialized(() => reloadNow(name)),
    unload: (name) => serialized(() => unloadNow(name)),
    isolate: (name, reason) => serialized(() => isolateNow(name, reason)),
    async start(mode) {
      const stops = watching.stops
      if (options.processGuard && mode !== 'command' && !removeProcessGuard) {
        removeProcessGuard = installProcessGuard({ log, extensions, isolate: kernel.isolate })
      }
      // A service's log is read: what it did (reloads, deliveries to the log) is worth a line.
      if (mode === 'gateway') logRoute.setDefaultLevel('info')
      if (!startedMode) {
        startedMode = mode
        await kernelHooks.ready.promise({ mode })
      }
      // Not if a shutdown came while the ready hooks ran: nothing would close the watcher.
      if (mode !== 'command' && stops === watching.stops) await kernel.watch()
    },
    routeLogs: (sink, level) => logRoute.take(sink, level),
    watch: () => watching.start(),
    async shutdown(reason = 'shutdown') {
      // Observations raised just before wait for the end of their turn (sdk/observe.ts): delivered
      // now, they reach their observers (a run's end starts its session's title) before the
      // shutdown hooks wait for what those started.
      deliverObservations()
      await watching.stop()
      if (startedMode) {
        try {
          await kernelHooks.shutdown.promise({ reason })
        } catch (error) {
          log.warn(`shutdown hook failed: ${errorMessage(error)}`)
        }
      }
      await queue.catch(() => undefined)
      for (const name of [...loadOrder].reverse()) await unloadNow(name)
      startedMode = undefined
      removeProcessGuard?.()
      removeProcessGuard = undefined
    },
    watchRoots,
  }
  const watching = new ExtensionWatching(
    async () => (await import('./watcher.ts')).watchExtensions(kernel, { userRoot: paths.extensions, log }),
    // The running versions' files not loaded yet are taken now, so a later broken save cannot reach them.
    () => sealLoaded([...records.values()].flatMap((r) => (r.staged && r.candidate ? [r.candidate.dir] : [])), () => watching.running),
  )
  return kernel
}

export type { RegistryKind }
