// The `terminal` config section: its JSON Schema and the effective settings of one command (backend,
// persistence with its per-backend environment overrides, the environment given to the shell).

import type { Settings } from 'agent/sdk'

export type Backend = 'local' | 'container'

export interface BackendSection {
  /** Variables set in this backend's shells (values are literal text). */
  env?: Record<string, string>
  persistent_shell?: boolean
}

export interface TerminalConfig {
  backend: Backend
  cwd?: string
  timeout: number
  max_timeout: number
  max_output_chars: number
  persistent_shell: boolean
  shell: string
  container_engine: 'docker' | 'podman'
  container_image: string
  container_workdir: string
  container_forward_env: string[]
  container_mount_cwd_to_workspace: boolean
  container_args: string[]
  background_output_interval: number
  /** The local backend's sandbox (sandbox.ts); AGENT_TERMINAL_SANDBOX wins. */
  sandbox: 'auto' | 'bwrap' | 'off'
  local: BackendSection
  container: BackendSection
}

const envName = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }
const backendSection = {
  type: 'object',
  default: {},
  properties: {
    env: { type: 'object', additionalProperties: { type: 'string' }, propertyNames: envName },
    persistent_shell: { type: 'boolean' },
  },
  additionalProperties: false,
}

export const TERMINAL_SCHEMA = {
  type: 'object',
  properties: {
    backend: { enum: ['local', 'container'], default: 'local' },
    cwd: { type: 'string' },
    timeout: { type: 'number', exclusiveMinimum: 0, default: 180 },
    max_timeout: { type: 'number', exclusiveMinimum: 0, default: 1800 },
    max_output_chars: { type: 'integer', minimum: 1000, default: 50000 },
    persistent_shell: { type: 'boolean', default: false },
    shell: { type: 'string', default: 'bash' },
    container_engine: { enum: ['docker', 'podman'], default: 'docker' },
    container_image: { type: 'string', minLength: 1, default: 'debian:bookworm-slim' },
    container_workdir: { type: 'string', pattern: '^/', default: '/workspace' },
    container_forward_env: { type: 'array', items: envName, default: [] },
    container_mount_cwd_to_workspace: { type: 'boolean', default: false },
    container_args: { type: 'array', items: { type: 'string' }, default: [] },
    background_output_interval: { type: 'number', minimum: 1, default: 10 },
    sandbox: { enum: ['auto', 'bwrap', 'off'], default: 'auto' },
    local: backendSection,
    container: backendSection,
  },
  additionalProperties: false,
} as const

/** Variables of the agent's environment a local shell starts with; nothing else leaks into it. */
export const LOCAL_BASE_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR', 'TZ']

/** Variables the container engine's own client needs (where the daemon is); never forwarded into the container. */
export const ENGINE_CLIENT_ENV = ['PATH', 'HOME', 'DOCKER_HOST', 'DOCKER_CONFIG', 'DOCKER_CONTEXT', 'DOCKER_CERT_PATH', 'DOCKER_TLS_VERIFY', 'CONTAINER_HOST', 'CONTAINERS_CONF', 'XDG_RUNTIME_DIR', 'TMPDIR']

const TRUE = /^(1|true|yes|on)$/i
const FALSE = /^(0|false|no|off)$/i

/**
 * Whether a backend keeps one shell per session: `AGENT_TERMINAL_<BACKEND>_PERSISTENT` (environment)
 * wins, then `terminal.<backend>.persistent_shell`, then `terminal.persistent_shell`.
 */
/**
 * The backend commands run on: AGENT_TERMINAL_BACKEND, else terminal.backend. An unknown value of
 * the variable throws (the terminal refuses): a mistyped `Container` must not run on the host.
 */
export function backendOf(settings: Settings, config: TerminalConfig): Backend {
  const fromEnv = settings.env('AGENT_TERMINAL_BACKEND')
  if (fromEnv === undefined || fromEnv === '') return config.backend
  if (fromEnv === 'local' || fromEnv === 'container') return fromEnv
  throw new Error(`AGENT_TERMINAL_BACKEND is ${JSON.stringify(fromEnv)}, not "local" or "container"; the command was not run`)
}

export function persistentFor(config: TerminalConfig, backend: Backend, settings: Settings): boolean {
  const fromEnv = settings.env(`AGENT_TERMINAL_${backend.toUpperCase()}_PERSISTENT`)
  if (fromEnv && TRUE.test(fromEnv)) return true
  if (fromEnv && FALSE.test(fromEnv)) return false
  return config[backend].persistent_shell ?? config.persistent_shell
}

export function pickEnv(settings: Settings, names: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of names) {
    const value = settings.env(name)
    if (value !== undefined) env[name] = value
  }
  return env
}

/** The environment of a local shell: the base variables, then `terminal.local.env`. */
export function localEnv(config: TerminalConfig, settings: Settings): Record<string, string> {
  return { ...pickEnv(settings, LOCAL_BASE_ENV), ...(config.local.env ?? {}) }
}
