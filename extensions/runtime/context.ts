// Token estimates and the compression settings. Estimates are deliberately rough (about four
// characters a token): they only decide when to compress, and the provider's reported prompt
// tokens correct them after every call.

import { ConfigError, type ChatMessage, type Settings } from 'agent/sdk'
import { perRevision } from './per-revision.ts'

export function messageChars(message: ChatMessage): number {
  let chars = 16
  const content = message.content
  if (typeof content === 'string') chars += content.length
  else if (Array.isArray(content)) for (const part of content) chars += part.type === 'text' ? part.text.length : 1000
  for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length + 16
  if (message.reasoning) chars += message.reasoning.length
  return chars
}

export function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0
  for (const message of messages) chars += messageChars(message)
  return Math.ceil(chars / 4)
}

export interface CompressionSettings {
  enabled: boolean
  /** Fraction of the context window at which older turns are summarised. */
  threshold: number
  /** Recent messages kept verbatim. */
  keepRecent: number
  /** Used when the model's context window is unknown. */
  defaultContextLength: number
  summaryProvider?: string
  summaryModel?: string
  summaryBaseUrl?: string
  summaryApiKey?: string
  /** Upper bound of the summary's length in tokens. */
  summaryMaxTokens: number
}

function pick<T>(settings: Settings, key: string, check: (v: unknown) => v is T, expected: string): T | undefined {
  const value = settings.get<unknown>(key)
  if (value === undefined || value === null) return undefined
  if (!check(value)) throw new ConfigError(`${settings.configPath}: ${key} must be ${expected}`)
  return value
}

const isBool = (v: unknown): v is boolean => typeof v === 'boolean'
const isString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== ''
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isPositiveInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0

/** The `compression.*` keys (config-only: never from the environment); reused while unchanged. */
export const compressionSettings = perRevision(function compressionSettings(settings: Settings): CompressionSettings {
  const threshold = pick(settings, 'compression.threshold', isNumber, 'a number between 0.1 and 0.95') ?? 0.8
  if (threshold < 0.1 || threshold > 0.95) throw new ConfigError(`${settings.configPath}: compression.threshold must be a number between 0.1 and 0.95`)
  const baseUrl = pick(settings, 'compression.summary_base_url', isString, 'a URL')
  if (baseUrl && !/^https?:\/\//i.test(baseUrl)) throw new ConfigError(`${settings.configPath}: compression.summary_base_url must be an http(s) URL`)
  return {
    enabled: pick(settings, 'compression.enabled', isBool, 'true or false') ?? true,
    threshold,
    keepRecent: pick(settings, 'compression.keep_recent', isPositiveInt, 'a positive integer') ?? 6,
    defaultContextLength: pick(settings, 'model.context_length', isPositiveInt, 'a positive integer') ?? 128_000,
    summaryProvider: pick(settings, 'compression.summary_provider', isString, 'a provider name'),
    summaryModel: pick(settings, 'compression.summary_model', isString, 'a model name'),
    summaryBaseUrl: baseUrl,
    summaryApiKey: pick(settings, 'compression.summary_api_key', isString, 'a string'),
    summaryMaxTokens: pick(settings, 'compression.summary_max_tokens', isPositiveInt, 'a positive integer') ?? 2000,
  }
})
