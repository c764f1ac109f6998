// Config versioning. config.yaml carries `_config_version` (currently 10). An existing file with an
// older (or no) version is missing settings added since: the migration asks for the environment
// variables introduced after the stored version (interactively), then stamps the version. Without a
// TTY, or in CI, it only warns. A missing config.yaml is a fresh install: nothing to migrate.

import { existsSync } from 'node:fs'
import type { Settings } from '../../sdk/types.ts'
import { isSecretName } from '../../sdk/redact.ts'

export const CONFIG_VERSION = 10

export interface EnvVarNote {
  name: string
  description: string
}

/** Environment variables by the config version that introduced them. */
export const ENV_VARS_BY_VERSION: Readonly<Record<number, readonly EnvVarNote[]>> = {
  1: [{ name: 'OPENAI_API_KEY', description: 'API key of an OpenAI-compatible endpoint' }],
  4: [{ name: 'AGENT_INFERENCE_PROVIDER', description: 'provider selector (name or alias)' }],
  6: [{ name: 'API_SERVER_KEY', description: 'bearer key of the API server (leave empty for loopback-only open access)' }],
  8: [{ name: 'WEBHOOK_SECRET', description: 'global HMAC secret for webhook routes without their own' }],
  9: [
    { name: 'TWILIO_ACCOUNT_SID', description: 'SMS provider account id' },
    { name: 'TWILIO_AUTH_TOKEN', description: 'SMS provider auth token' },
    { name: 'TWILIO_PHONE_NUMBER', description: 'SMS provider phone number' },
  ],
  10: [{ name: 'AGENT_API_TIMEOUT', description: 'provider API call timeout in seconds (default 900)' }],
}

export function storedVersion(settings: Settings): number {
  const value = settings.get<unknown>('_config_version')
  return typeof value === 'number' && Number.isInteger(value) ? value : 0
}

/** Variables introduced after `from` that are not set anywhere yet. */
export function missingSince(settings: Settings, from: number): EnvVarNote[] {
  const out: EnvVarNote[] = []
  for (const [version, vars] of Object.entries(ENV_VARS_BY_VERSION)) {
    if (Number(version) <= from) continue
    for (const note of vars) if (settings.env(note.name) === undefined) out.push(note)
  }
  return out
}

export interface MigrationOptions {
  interactive: boolean
  warn(text: string): void
  /** Answers for tests (prompts.inject). */
  answers?: unknown[]
}

/** Runs the migration if the stored version is older; returns true when the file is current afterwards. */
export async function checkConfigVersion(settings: Settings, options: MigrationOptions): Promise<boolean> {
  if (!existsSync(settings.configPath)) return true
  const from = storedVersion(settings)
  if (from >= CONFIG_VERSION) return true
  const missing = missingSince(settings, from)
  if (!options.interactive) {
    const names = missing.map((m) => m.name).join(', ')
    options.warn(`warning: ${settings.configPath} is at config version ${from}, current is ${CONFIG_VERSION}${names ? `; settings added since: ${names}` : ''}. Run \`agent config migrate\` in a terminal.`)
    return false
  }
  const { default: prompts } = await import('prompts')
  if (options.answers) prompts.inject(options.answers as never)
  for (const note of missing) {
    const { value } = await prompts({ type: isSecretName(note.name) ? 'password' : 'text', name: 'value', message: `${note.name} (${note.description}); empty to skip` })
    if (typeof value === 'string' && value.trim()) await settings.setEnv(note.name, value.trim())
  }
  await settings.set('_config_version', CONFIG_VERSION)
  return true
}
