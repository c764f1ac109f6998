// Config versioning. config.yaml carries `_config_version` (currently 10); the agent writes a new
// config.yaml at the current version (settings.ts). An older file may lack settings added since, but
// only those an enabled feature needs are asked for (SMS credentials when SMS is switched on …);
// optional ones keep their defaults. Without a TTY, or in CI, it says in one line what it would ask
// and never blocks or fails the run. A missing config.yaml is a fresh install: nothing to migrate.

import { existsSync } from 'node:fs'
import type { Settings } from '../../sdk/types.ts'
import { envSwitchOn } from '../../sdk/gateway.ts'
import { isSecretName } from '../../sdk/redact.ts'
import { MAX_ANSWER_ENV } from '../../sdk/provider-kit.ts'

export const CONFIG_VERSION = 10

export interface EnvVarNote {
  name: string
  description: string
  /** The feature that cannot work without it, when that feature is switched on; absent: optional. */
  neededBy?: { feature: string; enabled(settings: Settings): boolean }
}

/** A gateway platform switched on in config.yaml or by its environment switch. */
const platformOn = (platform: string, switchEnv: string) => ({
  feature: `the ${platform} platform`,
  enabled: (settings: Settings) => settings.get(`platforms.${platform}.enabled`) === true || (settings.get(`platforms.${platform}.enabled`) !== false && envSwitchOn(settings.env(switchEnv))),
})

const SMS = platformOn('sms', 'SMS_ENABLED')

/** Webhook routes refuse to start without a secret: the global one is needed when a route has none of its own. */
const WEBHOOK_ROUTE_WITHOUT_SECRET = {
  feature: 'a webhook route without its own secret',
  enabled(settings: Settings) {
    if (!platformOn('webhook', 'WEBHOOK_ENABLED').enabled(settings) || settings.get('platforms.webhook.extra.secret')) return false
    const routes = settings.get<unknown>('platforms.webhook.extra.routes')
    return typeof routes === 'object' && routes !== null && Object.values(routes).some((r) => !(r as { secret?: unknown } | null)?.secret)
  },
}

/** Environment variables by the config version that introduced them. */
export const ENV_VARS_BY_VERSION: Readonly<Record<number, readonly EnvVarNote[]>> = {
  1: [{ name: 'OPENAI_API_KEY', description: 'API key of an OpenAI-compatible endpoint (`agent setup` asks for the model)' }],
  4: [{ name: 'AGENT_INFERENCE_PROVIDER', description: 'provider selector (name or alias)' }],
  6: [{ name: 'API_SERVER_KEY', description: 'bearer key of the API server (leave empty for loopback-only open access)' }],
  8: [{ name: 'WEBHOOK_SECRET', description: 'global HMAC secret for webhook routes without their own', neededBy: WEBHOOK_ROUTE_WITHOUT_SECRET }],
  9: [
    { name: 'TWILIO_ACCOUNT_SID', description: 'SMS provider account id', neededBy: SMS },
    { name: 'TWILIO_AUTH_TOKEN', description: 'SMS provider auth token', neededBy: SMS },
    { name: 'TWILIO_PHONE_NUMBER', description: 'SMS provider phone number', neededBy: SMS },
  ],
  // Optional settings join the version they shipped in without a new one: nothing is asked for them.
  10: [
    { name: 'AGENT_API_TIMEOUT', description: 'provider API call timeout in seconds (default 900)' },
    { name: MAX_ANSWER_ENV, description: 'cap on one model answer in MiB, counted decoded (default 64)' },
  ],
}

export function storedVersion(settings: Settings): number {
  const value = settings.get<unknown>('_config_version')
  return typeof value === 'number' && Number.isInteger(value) ? value : 0
}

/** Variables introduced after `from`, not set anywhere yet, that a switched-on feature needs. */
export function missingSince(settings: Settings, from: number): EnvVarNote[] {
  const out: EnvVarNote[] = []
  for (const [version, vars] of Object.entries(ENV_VARS_BY_VERSION)) {
    if (Number(version) <= from) continue
    for (const note of vars) if (note.neededBy?.enabled(settings) && settings.env(note.name) === undefined) out.push(note)
  }
  return out
}

export interface MigrationOptions {
  interactive: boolean
  warn(text: string): void
  /** Stamp the current version when nothing needs asking (`agent config migrate`); otherwise such a file is left alone. */
  stamp?: boolean
  /** Answers for tests (prompts.inject). */
  answers?: unknown[]
}

/** One line: what the migration would ask, and how to answer it without a terminal. */
function pendingLine(settings: Settings, from: number, missing: readonly EnvVarNote[]): string {
  const names = missing.map((m) => `${m.name} (${m.neededBy!.feature})`).join(', ')
  return `warning: ${settings.configPath} is at config version ${from}, current is ${CONFIG_VERSION}; settings added since that a switched-on feature needs: ${names}. Run \`agent config migrate\` in a terminal, or \`agent config set NAME value\`.`
}

/**
 * Runs the migration if the stored version is older; true when nothing is left to ask. Never throws
 * for want of a terminal: non-interactively it only warns (once, one line) and returns false.
 */
export async function checkConfigVersion(settings: Settings, options: MigrationOptions): Promise<boolean> {
  if (!existsSync(settings.configPath)) return true
  const from = storedVersion(settings)
  if (from >= CONFIG_VERSION) return true
  const missing = missingSince(settings, from)
  if (missing.length === 0) {
    if (options.stamp) await settings.set('_config_version', CONFIG_VERSION)
    return true
  }
  if (!options.interactive) {
    options.warn(pendingLine(settings, from, missing))
    return false
  }
  const { default: prompts } = await import('prompts')
  if (options.answers) prompts.inject(options.answers as never)
  let cancelled = false
  for (const note of missing) {
    const question = { type: isSecretName(note.name) ? 'password' : 'text', name: 'value', message: `${note.name} (${note.description}, needed by ${note.neededBy!.feature}); empty to skip` } as const
    const { value } = await prompts(question, { onCancel: () => (cancelled = true) })
    // Ctrl-C: keep what was answered, but the version stays old so the rest is asked next time.
    if (cancelled) return false
    if (typeof value === 'string' && value.trim()) await settings.setEnv(note.name, value.trim())
  }
  await settings.set('_config_version', CONFIG_VERSION)
  return true
}
