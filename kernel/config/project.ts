// Trust of a project config (./.agent/config.yaml and the other cosmiconfig places): read only with
// the project opt-in, and even then limited to keys that cannot run a program, send a credential
// elsewhere or relax a guard, unless the user's own config says `security.project_config: trusted`.

import { ConfigError } from '../../sdk/errors.ts'
import type { ProjectConfigStatus } from '../../sdk/services.ts'
import type { JsonSchema } from '../../sdk/types.ts'

export type { ProjectConfigStatus }

// Where a project config may live: in the sdk, whose path rules protect those places from the tools.
export { PROJECT_CONFIG_PLACES } from '../../sdk/protected-paths.ts'

export const PROJECT_TRUST_KEY = 'security.project_config'
const TRUST_VALUES = ['safe', 'trusted'] as const
export type ProjectTrust = (typeof TRUST_VALUES)[number]

/** The user's settings this file reads, so `agent config set` refuses a value they cannot take. */
export const PROJECT_SETTINGS: ReadonlyArray<{ key: string; schema: JsonSchema }> = [
  { key: PROJECT_TRUST_KEY, schema: { enum: [...TRUST_VALUES] } },
  { key: 'extensions.project', schema: { type: 'boolean' } },
]

/**
 * What an opted-in project may set without `trusted`: the model choice and presentation. An allow
 * list, not a deny list: a setting added later is guarded until someone decides it is harmless.
 * Left out on purpose: model.base_url / api_key and compression.summary_base_url / summary_api_key
 * (the user's key would go to the project's server), and every section that names a command, a path,
 * a listener, an allowlist or a guard (approvals, security, extensions, mcp_servers, terminal, …).
 */
const SAFE_PATHS: readonly string[] = [
  'model.default',
  'model.provider',
  'model.context_length',
  'agent.max_iterations',
  'agent.personality',
  'agent.reasoning_effort',
  'agent.system_prompt',
  'agent.tool_result_max_chars',
  'compression.enabled',
  'compression.threshold',
  'compression.keep_recent',
  'compression.summary_provider',
  'compression.summary_model',
  'compression.summary_max_tokens',
  'display',
  'personalities',
  'timezone',
]
/** `model: <name>` is the short form of model.default. */
const SAFE_SCALARS = new Set(['model'])

/** The project opt-in, the same as for project extensions: a flag, the user's own config, or the environment. */
export function projectOptedIn(flag: boolean | undefined, ownProjectSetting: unknown, env: NodeJS.ProcessEnv): boolean {
  return flag ?? (ownProjectSetting === true || env.AGENT_PROJECT_EXTENSIONS === 'true')
}

/** `security.project_config` from the user's own config; anything but the two values is an error, never a default. */
export function projectTrust(value: unknown, configPath: string): ProjectTrust {
  if (value === undefined) return 'safe'
  if (typeof value === 'string' && (TRUST_VALUES as readonly string[]).includes(value)) return value as ProjectTrust
  throw new ConfigError(`${configPath}: ${PROJECT_TRUST_KEY} must be one of ${TRUST_VALUES.join(', ')} (got ${JSON.stringify(value)})`)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Splits a project config into what may apply and the dot paths that were dropped. */
export function filterProject(config: Record<string, unknown>, trust: ProjectTrust): { kept: Record<string, unknown>; dropped: string[] } {
  if (trust === 'trusted') return { kept: config, dropped: [] }
  const dropped: string[] = []
  const walk = (value: Record<string, unknown>, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${key}` : key
      if (SAFE_PATHS.some((safe) => path === safe || path.startsWith(safe + '.')) || (SAFE_SCALARS.has(path) && typeof child === 'string')) {
        out[key] = child
      } else if (isPlainObject(child) && SAFE_PATHS.some((safe) => safe.startsWith(path + '.'))) {
        const inner = walk(child, path)
        if (Object.keys(inner).length > 0) out[key] = inner
      } else {
        // Name the keys one level down (approvals.mode rather than approvals) so the notice says what was meant.
        const below = isPlainObject(child) ? Object.keys(child) : []
        dropped.push(...(below.length ? below.map((k) => `${path}.${k}`) : [path]))
      }
    }
    return out
  }
  return { kept: walk(config, ''), dropped }
}

/** The one line said about a project config that was ignored or partly applied; undefined when all of it applied. */
export function projectNotice(status: ProjectConfigStatus, configPath: string): string | undefined {
  if (!status.applied) {
    return `project config ${status.path} ignored: project settings apply only with extensions.project: true in ${configPath}, AGENT_PROJECT_EXTENSIONS=true or --project-extensions`
  }
  if (status.dropped.length === 0) return undefined
  const shown = status.dropped.slice(0, 8).join(', ') + (status.dropped.length > 8 ? ` and ${status.dropped.length - 8} more` : '')
  return `project config ${status.path}: ignored ${shown} (a project may set only model, agent, compression and display settings; allow the rest with ${PROJECT_TRUST_KEY}: trusted in ${configPath})`
}
