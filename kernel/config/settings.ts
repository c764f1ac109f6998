// config.yaml, .env and the project config behind the Settings interface. config.yaml is held as a
// yaml Document so `set` keeps comments and layout. A project config (found with cosmiconfig from the
// working directory) is merged over it for reading only with the project opt-in and only as far as
// project.ts trusts it; writes go to the user's config.yaml only.

import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import YAML from 'yaml'
import writeFileAtomic from 'write-file-atomic'
import { ConfigError, errorMessage } from '../../sdk/errors.ts'
import type { Settings } from '../../sdk/types.ts'
import type { SecretEntry } from '../../sdk/redact.ts'
import { envFileStamp, readEnvFile, writeEnvKey } from './env-file.ts'
import { collectSecrets } from './secrets.ts'
import { CONFIG_VERSION } from './migrate.ts'
import { homePaths } from './home.ts'
import { filterProject, PROJECT_CONFIG_PLACES, PROJECT_TRUST_KEY, projectNotice, projectOptedIn, projectTrust, type ProjectConfigStatus } from './project.ts'

export interface SettingsOptions {
  home: string
  env?: NodeJS.ProcessEnv
  /** Directory to search for a project config; omit to skip. */
  projectDir?: string
  /** The --project-extensions flag: true or false decides; unset, the user's config and environment do. */
  projectOptIn?: boolean
}

// Hot paths read the same few keys on every request: split each dotted path once.
const splitCache = new Map<string, readonly string[]>()

export function splitPath(path: string): readonly string[] {
  const cached = splitCache.get(path)
  if (cached) return cached
  const parts = Object.freeze(path.split('.').filter((p) => p.length > 0))
  if (parts.length === 0) throw new ConfigError(`invalid config key "${path}"`)
  if (splitCache.size < 1000) splitCache.set(path, parts)
  return parts
}

function getIn(value: unknown, parts: readonly string[]): unknown {
  let current = value
  for (const part of parts) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over)) {
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? deepMerge(out[key] as Record<string, unknown>, value) : value
  }
  return out
}

/**
 * Parses config.yaml text into a Document. Every problem is one ConfigError naming
 * `<file>:<line>:<col>`: syntax errors, duplicate keys, and aliases expanding past the limit (a
 * "billion laughs" bomb, which the yaml library refuses at toJS without a position).
 */
export function parseConfigDocument(text: string, file: string): YAML.Document {
  const lineCounter = new YAML.LineCounter()
  const at = (offset: number) => {
    const pos = lineCounter.linePos(offset)
    return `${file}:${pos.line}:${pos.col}`
  }
  if (text.length > MAX_CONFIG_CHARS) throw new ConfigError(`${file}: ${text.length} characters is more than a config file may hold (${MAX_CONFIG_CHARS})`)
  // Duplicate keys are found here, in one pass: the library's own check compares every key of a
  // mapping with every other (a large file then takes minutes).
  const doc = YAML.parseDocument(text, { prettyErrors: false, lineCounter, uniqueKeys: false })
  const first = doc.errors[0]
  if (first) throw new ConfigError(`${at(first.pos[0])}: ${first.message.split('\n')[0]}`)
  const duplicate = firstDuplicateKey(doc)
  if (duplicate !== undefined) throw new ConfigError(`${at(duplicate)}: Map keys must be unique`)
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })
  } catch (error) {
    throw new ConfigError(`${at(firstAliasOffset(doc))}: ${errorMessage(error)} (more than ${MAX_ALIAS_COUNT} alias expansions)`, { cause: error })
  }
  if (value !== null && value !== undefined && !isPlainObject(value)) {
    throw new ConfigError(`${file}: the top level must be a mapping of keys, not ${Array.isArray(value) ? 'a list' : typeof value}`)
  }
  return doc
}

const MAX_ALIAS_COUNT = 100
/** Far above any real config (a few KiB): a bound on what a file, a project's included, costs to read. */
const MAX_CONFIG_CHARS = 1024 * 1024

/** Where the first key repeated in its mapping starts (scalars compared by type and value, as the library does), if any. */
function firstDuplicateKey(doc: YAML.Document): number | undefined {
  let found: number | undefined
  YAML.visit(doc, {
    Map(_key, map) {
      const seen = new Set<string>()
      for (const pair of map.items) {
        if (!YAML.isScalar(pair.key)) continue
        const id = `${typeof pair.key.value}:${String(pair.key.value)}`
        if (seen.has(id)) {
          found = pair.key.range?.[0] ?? 0
          return YAML.visit.BREAK
        }
        seen.add(id)
      }
    },
  })
  return found
}

/** Where the first alias starts: the yaml library's alias-count error carries no position. */
function firstAliasOffset(doc: YAML.Document): number {
  let offset = 0
  YAML.visit(doc, {
    Alias(_key, node) {
      offset = node.range?.[0] ?? 0
      return YAML.visit.BREAK
    },
  })
  return offset
}

export class FileSettings implements Settings {
  readonly home: string
  readonly configPath: string
  readonly envPath: string
  /** The project config file that was merged, if any. */
  projectConfigPath: string | undefined
  /** The project config found, whether it applies, and which keys were left out. */
  projectStatus: ProjectConfigStatus | undefined
  /** Whether the user opted in to project-local extensions and config. */
  readonly projectOptIn: boolean
  /** Names of the environment variables read so far (the help snapshot depends on them). */
  readonly envRead = new Set<string>()
  private readonly processEnv: NodeJS.ProcessEnv
  private doc: YAML.Document
  private data: Record<string, unknown> = {}
  private merged: Record<string, unknown> = {}
  private dotenv: Record<string, string> | undefined
  private dotenvStamp = ''
  /** See revision(). */
  private changed = 0
  private dotenvCheckedAt = 0
  private secrets: { config: object; dotenv: object; at: number; entries: SecretEntry[]; values: string[] } | undefined
  private project: Record<string, unknown> = {}
  private projectRaw: Record<string, unknown> | undefined

  constructor(options: SettingsOptions) {
    this.home = options.home
    const paths = homePaths(options.home)
    this.configPath = paths.config
    this.envPath = paths.env
    this.processEnv = options.env ?? process.env
    this.doc = new YAML.Document({})
    this.reload()
    this.projectOptIn = projectOptedIn(options.projectOptIn, this.getOwn('extensions.project'), this.processEnv)
    if (options.projectDir) this.loadProject(options.projectDir)
  }

  /** Re-reads config.yaml (throws ConfigError for a broken file). */
  reload(): void {
    const text = existsSync(this.configPath) ? readFileSync(this.configPath, 'utf8') : ''
    this.doc = text.trim() ? parseConfigDocument(text, this.configPath) : new YAML.Document({})
    this.data = (this.doc.toJS() as Record<string, unknown> | null) ?? {}
    this.applyProject()
    this.dotenv = undefined
  }

  /** Bumped whenever what get() or env() answer may have changed (config, project overlay, .env). */
  revision(): number {
    return this.changed
  }

  /** Filters the project config by the trust the user's own config gives it (re-done when config.yaml changes). */
  private applyProject(): void {
    if (this.projectRaw && this.projectStatus) {
      const { kept, dropped } = filterProject(this.projectRaw, projectTrust(this.getOwn(PROJECT_TRUST_KEY), this.configPath))
      this.project = kept
      this.projectStatus = { path: this.projectStatus.path, applied: true, dropped }
      const notice = projectNotice(this.projectStatus, this.configPath)
      if (notice) this.projectStatus.notice = notice
    }
    this.merged = deepMerge(this.data, this.project)
    this.changed++
  }

  private loadProject(dir: string): void {
    // Loaded lazily and synchronously: cosmiconfig is cheap but not free, and most runs have no project file.
    const place = PROJECT_CONFIG_PLACES.find((c) => existsSync(`${dir}/${c}`))
    if (!place) return
    // Run from the home's parent (~), ./.agent/config.yaml is the user's own config, not a project's.
    if (sameFile(`${dir}/${place}`, this.configPath)) return
    if (!this.projectOptIn) {
      this.projectStatus = { path: `${dir}/${place}`, applied: false, dropped: [] }
      this.projectStatus.notice = projectNotice(this.projectStatus, this.configPath)
      return
    }
    const { cosmiconfigSync } = requireCosmiconfig()
    // One parser for every place (JSON is YAML): errors as file:line:col, duplicate keys and alias bombs refused.
    const load = (file: string, content: string) => parseConfigDocument(content, file).toJS()
    const explorer = cosmiconfigSync('agent', { searchPlaces: [...PROJECT_CONFIG_PLACES], searchStrategy: 'none', loaders: { '.yaml': load, '.yml': load, '.json': load, noExt: load } })
    let found: ReturnType<typeof explorer.search>
    try {
      found = explorer.search(dir)
    } catch (error) {
      throw ConfigError.isInstance(error) ? error : new ConfigError(`${dir}/${place}: ${errorMessage(error).split('\n')[0]}`, { cause: error })
    }
    if (found && isPlainObject(found.config)) {
      this.projectConfigPath = found.filepath
      this.projectRaw = found.config
      this.projectStatus = { path: found.filepath, applied: true, dropped: [] }
      this.applyProject()
    }
  }

  get<T = unknown>(path: string): T | undefined {
    return getIn(this.merged, splitPath(path)) as T | undefined
  }

  /** The user's config.yaml alone, without the project overlay. */
  getOwn<T = unknown>(path: string): T | undefined {
    return getIn(this.data, splitPath(path)) as T | undefined
  }

  env(name: string): string | undefined {
    this.envRead.add(name)
    const fromProcess = this.processEnv[name]
    if (fromProcess !== undefined && fromProcess !== '') return fromProcess
    this.dotenv ??= readEnvFile(this.envPath)
    const fromFile = this.dotenv[name]
    return fromFile === '' ? undefined : fromFile
  }

  async set(path: string, value: unknown): Promise<void> {
    const parts = splitPath(path)
    if (value === undefined) {
      // Removing what is not there changes nothing (and the yaml library would throw on a missing parent).
      if (getIn(this.data, parts) === undefined) return
      this.doc.deleteIn(parts)
    } else {
      // The first write makes a new config.yaml: it is current, so it is stamped (no migration nag).
      if (Object.keys(this.data).length === 0 && parts[0] !== '_config_version') this.doc.set('_config_version', CONFIG_VERSION)
      this.doc.setIn(parts, value)
    }
    mkdirSync(dirname(this.configPath), { recursive: true })
    await writeFileAtomic(this.configPath, this.doc.toString(), { mode: 0o600 })
    this.data = (this.doc.toJS() as Record<string, unknown> | null) ?? {}
    this.applyProject()
  }

  async setEnv(name: string, value: string | undefined): Promise<void> {
    mkdirSync(dirname(this.envPath), { recursive: true })
    await writeEnvKey(this.envPath, name, value)
    this.dotenv = undefined
    this.changed++
  }

  /** Every secret the agent knows, named (kernel/config/secrets.ts says which), for redaction. */
  secretEntries(options: { fresh?: boolean } = {}): SecretEntry[] {
    // .env may be edited behind our back (by the agent's own terminal, too): a changed file is
    // re-read. Its stamp is taken on a fresh ask, else at most every 100 ms (a stat per log line
    // and stored message was a tenth of an API request's CPU).
    const now = Date.now()
    if (options.fresh || now - this.dotenvCheckedAt >= 100) {
      this.dotenvCheckedAt = now
      const stamp = envFileStamp(this.envPath)
      if (stamp !== this.dotenvStamp) {
        this.dotenv = undefined
        this.changed++
        this.dotenvStamp = stamp
      }
    }
    this.dotenv ??= readEnvFile(this.envPath)
    // Every log line, stored message and tool result asks: collect again only when the config or
    // .env changed, or a second has passed (this process's own environment changes only through
    // its own code — set-up, tests — and reading it whole costs more than the rest together).
    const cached = this.secrets
    if (cached && cached.config === this.merged && cached.dotenv === this.dotenv && Date.now() - cached.at < 1000) return cached.entries
    const entries = Object.freeze(collectSecrets({ env: this.processEnv, dotenv: this.dotenv, config: this.merged }).map((e) => Object.freeze(e))) as SecretEntry[]
    this.secrets = { config: this.merged, dotenv: this.dotenv, at: Date.now(), entries, values: Object.freeze(entries.map((e) => e.value)) as string[] }
    return entries
  }

  /** The values of secretEntries(), for redaction in logs and errors. */
  secretValues(): string[] {
    const entries = this.secretEntries()
    return this.secrets?.entries === entries ? this.secrets.values : entries.map((e) => e.value)
  }

  all(): Record<string, unknown> {
    return structuredClone(this.merged)
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}

// cosmiconfig is CommonJS; load it only when a project file exists.
const requireCjs = createRequire(import.meta.url)
function requireCosmiconfig(): typeof import('cosmiconfig') {
  return requireCjs('cosmiconfig') as typeof import('cosmiconfig')
}
