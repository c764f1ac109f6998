// Writing a model choice to config: `model.provider`, `model.default`, `model.base_url`,
// `model.context_length`, or a named `custom_providers` entry. Keys go to .env, never config.yaml.

import { CHAT_CONFIG, type ModelSelection, type Settings } from 'agent/sdk'

export interface ModelChoice {
  /** Canonical provider name (`custom` for every custom endpoint). */
  provider: string
  /** Undefined: the provider's default, or what a custom endpoint serves. */
  model?: string
  baseUrl?: string
  /** A named custom endpoint (`custom:<name>`). */
  name?: string
  apiKey?: string
  /** The environment variable the key is stored in. */
  keyEnv?: string
  contextLength?: number
}

interface CustomEntry {
  name: string
  [field: string]: unknown
}

/** `MY-LAB` → `MY_LAB_API_KEY`. */
export function keyEnvFor(name: string): string {
  return `${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '')}_API_KEY`
}

/** Everything that was written, for the summary line. */
export async function saveChoice(settings: Settings, choice: ModelChoice): Promise<string[]> {
  const written: string[] = []
  const set = async (key: string, value: unknown) => {
    await settings.set(key, value)
    if (value !== undefined) written.push(key)
  }
  if (choice.provider === 'custom' && choice.name) {
    const raw = settings.get<unknown>('custom_providers')
    const list: CustomEntry[] = Array.isArray(raw) ? (raw as CustomEntry[]).filter((e) => e && typeof e === 'object') : []
    const entry: CustomEntry = { name: choice.name, base_url: choice.baseUrl }
    if (choice.model) entry.model = choice.model
    if (choice.contextLength) entry.context_length = choice.contextLength
    if (choice.apiKey) entry.key_env = choice.keyEnv ?? keyEnvFor(choice.name)
    const index = list.findIndex((e) => String(e.name).toLowerCase() === choice.name!.toLowerCase())
    if (index >= 0) list[index] = { ...list[index], ...entry }
    else list.push(entry)
    await set('custom_providers', list)
    await set(CHAT_CONFIG.modelProvider, `custom:${choice.name}`)
    await set(CHAT_CONFIG.modelDefault, choice.model)
  } else {
    await set(CHAT_CONFIG.modelProvider, choice.provider)
    await set(CHAT_CONFIG.modelDefault, choice.model)
    if (choice.provider === 'custom') {
      await set(CHAT_CONFIG.modelBaseUrl, choice.baseUrl)
      await set('model.context_length', choice.contextLength)
    } else {
      // A base URL and context length belong to the endpoint they were set for.
      await settings.set(CHAT_CONFIG.modelBaseUrl, undefined)
      await settings.set('model.context_length', undefined)
    }
  }
  if (choice.apiKey) {
    const name = choice.keyEnv ?? (choice.name ? keyEnvFor(choice.name) : 'OPENAI_API_KEY')
    await settings.setEnv(name, choice.apiKey)
    written.push(`${name} (.env)`)
  }
  return written
}

/** `/model … --save`: the validated selection becomes the configured model. */
export async function saveSelection(settings: Settings, selection: ModelSelection): Promise<void> {
  const provider = selection.customName ? `custom:${selection.customName}` : selection.provider
  await settings.set(CHAT_CONFIG.modelProvider, provider)
  await settings.set(CHAT_CONFIG.modelDefault, selection.model || undefined)
  if (selection.provider === 'custom' && !selection.customName && selection.baseUrl) await settings.set(CHAT_CONFIG.modelBaseUrl, selection.baseUrl)
}

export function describeSelection(s: { provider: string; model: string; customName?: string }): string {
  if (s.customName) return `custom:${s.customName}:${s.model}`
  return `${s.provider}:${s.model}`
}
