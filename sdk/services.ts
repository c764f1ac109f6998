// Interfaces of the services built-in extensions provide to each other (`api.services.get<T>(name)`).
// Extensions cooperate through these, never by importing each other's files.

export const HTTP_SERVICE = 'http'

export interface HttpService {
  /** Starts every listener that has endpoints (idempotent); gateway mode does this on ready. */
  start(): Promise<void>
  /** Where a running listener is reachable. */
  address(listener: string): { host: string; port: number; url: string } | undefined
  /** Names of running listeners. */
  running(): string[]
  stop(): Promise<void>
}

export const EXTENSIONS_SERVICE = 'extensions'

/** Provided by the kernel: what is loaded, and (re)loading on request (plugin installs, refreshes). */
export interface ExtensionsService {
  list(): import('./types.ts').ExtensionInfo[]
  /** Loads a newly installed extension or rebuilds a loaded one; the old version keeps running if that fails. */
  reload(name: string): Promise<{ name: string; ok: boolean; reason?: string }>
  unload(name: string): Promise<void>
  /**
   * What would be wrong with `value` at config path `path`, checked against the config schema of every
   * extension owning that key (one line per problem, naming the key; [] when fine or unowned).
   */
  checkSetting(path: string, value: unknown): string[]
  /** The JSON Schema of the value at config path `path`, from the extension owning it; undefined when unowned. */
  settingSchema(path: string): import('./types.ts').JsonSchema | undefined
  /** The schema defaults of every owned section, nested by dot path: what an absent key means. */
  settingDefaults(): Record<string, unknown>
  /** Dot paths of every owned section (`approvals`, `platforms.api_server`, `display` …). */
  settingSections(): string[]
}

export const CONFIG_MIGRATION_SERVICE = 'config-migration'

/** Provided by the kernel: brings an older config.yaml to the current config version. */
export interface ConfigMigrationService {
  /**
   * True when nothing is left to ask. Asks (interactive) only for what a switched-on feature needs;
   * otherwise warns in one line and returns false. `stamp` writes the current version when nothing
   * needs asking (`agent config migrate`).
   */
  check(interactive: boolean, warn: (text: string) => void, options?: { stamp?: boolean }): Promise<boolean>
}

export const PROJECT_CONFIG_SERVICE = 'project-config'

/** A project config found in the working directory, and how much of it applies. */
export interface ProjectConfigStatus {
  /** The file found (e.g. <cwd>/.agent/config.yaml). */
  path: string
  /** False when it was not read at all (no project opt-in). */
  applied: boolean
  /** Dot paths left out because they could weaken safety (empty when trusted). */
  dropped: string[]
  /** The one-line notice, when something was ignored. */
  notice?: string
}

/** Provided by the kernel: what happened to the project config, for `agent doctor`. */
export interface ProjectConfigService {
  status(): ProjectConfigStatus | undefined
}

export const CONFIG_SERVICE = 'config'

/** Provided by config-cli: what `agent config show --json` prints and what `agent config set` does, for other surfaces. */
export interface ConfigService {
  /** Every setting in effect (config.yaml over the defaults, variables that decide a key), secrets masked. */
  effective(): Array<{ key: string; value: unknown; source: 'default' | 'config' | 'project' | 'env' }>
  /**
   * Sets a config.yaml key from its text as `agent config set` does: coerced by the owner's schema,
   * checked by it, comments kept. Throws (and writes nothing) on a bad value or key; variables
   * (`FOO_API_KEY`) are refused here.
   */
  set(key: string, raw: string): Promise<unknown>
}

export const INSIGHTS_SERVICE = 'insights'

/** Provided by insights: the document `agent insights --json` prints. */
export interface InsightsService {
  collect(options: { days: number; source?: string }): Promise<Record<string, unknown>>
}

export const CRON_SERVICE = 'cron'

/** Provided by cron: jobs as `agent cron list --json` shows them, and its run/pause/resume. */
export interface CronService {
  list(): Promise<Array<Record<string, unknown>>>
  /** Runs a job now in this process (as `agent cron run`); resolves with its outcome. */
  run(idOrName: string): Promise<Record<string, unknown>>
  pause(idOrName: string): Promise<Record<string, unknown>>
  resume(idOrName: string): Promise<Record<string, unknown>>
}

export const TERMINAL_SANDBOX_SERVICE = 'terminal-sandbox'

/** Provided by tools-terminal: whether local commands run in the sandbox here, and why not (`agent doctor`). */
export interface TerminalSandboxService {
  status(): Promise<{ mode: 'auto' | 'bwrap' | 'off'; active: boolean; reason?: string }>
}
