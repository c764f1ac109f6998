// MCP server entries of config.yaml (`mcp_servers.<name>`): stdio (`command`, `args`, `env`, `cwd`) or
// HTTP (`url`, `headers`; Streamable HTTP falling back to legacy HTTP+SSE, or `transport: sse`), with
// timeouts, an enabled switch and tool filters. `${VAR}` in env values and headers is filled from the
// environment or .env at connect time, so secrets stay in .env. The section is read fresh from
// config.yaml, so /reload-mcp sees servers added meanwhile.

import { existsSync, readFileSync } from 'node:fs'
import YAML from 'yaml'
import { AgentError, type Settings } from 'agent/sdk'

export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/

export interface ServerConfig {
  name: string
  transport: 'stdio' | 'http' | 'sse'
  command?: string
  args: string[]
  env: Record<string, string>
  cwd?: string
  url?: string
  headers: Record<string, string>
  /** Per tool call, ms. */
  timeoutMs: number
  connectTimeoutMs: number
  enabled: boolean
  include?: string[]
  exclude: string[]
}

export type ServerEntry = { ok: true; config: ServerConfig } | { ok: false; name: string; reason: string }

const strings = (value: unknown): string[] | undefined => (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number') ? value.map(String) : undefined)

function stringMap(value: unknown, what: string): Record<string, string> {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`"${what}" must be a mapping`)
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new Error(`"${what}.${k}" must be a string`)
    out[k] = String(v)
  }
  return out
}

function seconds(value: unknown, fallback: number, what: string): number {
  if (value === undefined || value === null) return fallback * 1000
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`"${what}" must be a positive number of seconds`)
  return Math.round(n * 1000)
}

/** Checks one raw entry; throws a one-line reason. */
export function parseServer(name: string, raw: unknown): ServerConfig {
  if (!SERVER_NAME.test(name)) throw new Error(`server name "${name}" must be 1-32 letters, digits, "_" or "-"`)
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('must be a mapping with "command" or "url"')
  const r = raw as Record<string, unknown>
  const hasCommand = typeof r.command === 'string' && r.command.trim() !== ''
  const hasUrl = typeof r.url === 'string' && r.url.trim() !== ''
  if (hasCommand === hasUrl) throw new Error('needs exactly one of "command" (stdio) or "url" (streamable HTTP)')
  if (hasUrl) {
    let url: URL
    try {
      url = new URL(r.url as string)
    } catch {
      throw new Error(`"url" ${String(r.url)} is not a URL`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('"url" must be http(s)')
  }
  if (r.transport !== undefined && !(hasUrl ? ['http', 'sse'] : ['stdio']).includes(String(r.transport))) throw new Error(`"transport" must be ${hasUrl ? 'http or sse' : 'stdio'} for this server`)
  const args = r.args === undefined ? [] : strings(r.args)
  if (!args) throw new Error('"args" must be a list of strings')
  const tools = (r.tools ?? {}) as Record<string, unknown>
  const include = tools.include === undefined ? undefined : strings(tools.include)
  const exclude = tools.exclude === undefined ? [] : strings(tools.exclude)
  if ((tools.include !== undefined && !include) || !exclude) throw new Error('"tools.include" and "tools.exclude" must be lists of tool names')
  return {
    name,
    transport: hasUrl ? (r.transport === 'sse' ? 'sse' : 'http') : 'stdio',
    command: hasCommand ? (r.command as string) : undefined,
    args,
    env: stringMap(r.env, 'env'),
    cwd: typeof r.cwd === 'string' ? r.cwd : undefined,
    url: hasUrl ? (r.url as string) : undefined,
    headers: stringMap(r.headers, 'headers'),
    timeoutMs: seconds(r.timeout, 120, 'timeout'),
    connectTimeoutMs: seconds(r.connect_timeout, 30, 'connect_timeout'),
    enabled: r.enabled !== false,
    include,
    exclude,
  }
}

/** The raw `mcp_servers` section: config.yaml as it is on disk now, else what the settings loaded. */
export function rawServers(settings: Settings): Record<string, unknown> {
  try {
    if (existsSync(settings.configPath)) {
      const doc = YAML.parse(readFileSync(settings.configPath, 'utf8')) as Record<string, unknown> | null
      const section = doc?.mcp_servers
      return section && typeof section === 'object' && !Array.isArray(section) ? (section as Record<string, unknown>) : {}
    }
  } catch {
    // A config.yaml being written or broken: fall back to what was loaded at start.
  }
  const loaded = settings.get<Record<string, unknown>>('mcp_servers')
  return loaded && typeof loaded === 'object' ? loaded : {}
}

export function readServers(settings: Settings): ServerEntry[] {
  return Object.entries(rawServers(settings)).map(([name, raw]): ServerEntry => {
    try {
      return { ok: true, config: parseServer(name, raw) }
    } catch (error) {
      return { ok: false, name, reason: (error as Error).message }
    }
  })
}

/** Fills `${VAR}` from the environment and .env; an unset variable is an error naming it. */
export function expand(value: string, settings: Settings, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const found = settings.env(name)
    if (found === undefined) throw new AgentError('E_CONFIG', `${where} needs the environment variable ${name}, which is not set (environment or .env)`)
    return found
  })
}

/** Whether a server's tool passes its include/exclude filters. */
export function toolAllowed(config: ServerConfig, tool: string): boolean {
  if (config.exclude.includes(tool)) return false
  return !config.include || config.include.includes(tool)
}
