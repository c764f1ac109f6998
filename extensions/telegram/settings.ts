// The Telegram adapter's settings: whether it runs, the bot token, the Bot API root (a test fake
// overrides it) and the behaviour in groups (require a mention, free-response chats). The environment
// wins over platforms.telegram.extra; the token comes from the environment or .env only.

import { ConfigError, envBoolean, parseHttpUrl, parseIdList, platformEnabled, platformSetting, type Settings } from 'agent/sdk'

export const PLATFORM = 'telegram'
export const DEFAULT_API_BASE = 'https://api.telegram.org'

export interface TelegramExtra {
  require_mention?: boolean
  free_response_chats?: Array<string | number> | string
  command_menu: boolean
  poll_timeout_seconds: number
  batch_window_ms: number
  conflict_retries: number
}

export interface TelegramConfig {
  enabled?: boolean
  extra: TelegramExtra
}

export interface Behaviour {
  /** Group messages must mention the bot (or reply to it, or address a command to it), except in free-response chats. */
  requireMention: boolean
  /** Chat ids where every group message is answered. */
  freeResponseChats: Set<string>
}

/** platforms.telegram.enabled false turns it off; true, TELEGRAM_ENABLED or a bot token turn it on. */
export function telegramEnabled(settings: Settings): boolean {
  return platformEnabled(settings, PLATFORM, 'TELEGRAM_ENABLED', () => Boolean(settings.env('TELEGRAM_BOT_TOKEN')?.trim()))
}

/** A Bot API token: `<bot id>:<secret>` as BotFather gives it. */
const TOKEN = /^\d{3,20}:[A-Za-z0-9_-]{20,}$/

export function botToken(settings: Settings, what: string): string {
  const token = settings.env('TELEGRAM_BOT_TOKEN')?.trim()
  if (!token) throw new ConfigError(`${what} needs TELEGRAM_BOT_TOKEN (the token BotFather gave when you created the bot: /newbot, or /token for an existing one)`)
  if (!TOKEN.test(token)) throw new ConfigError('TELEGRAM_BOT_TOKEN does not look like a Bot API token (<digits>:<secret>, as BotFather shows it)')
  return token
}

export function apiBase(settings: Settings): string {
  const value = settings.env('TELEGRAM_API_BASE_URL')?.trim() || DEFAULT_API_BASE
  parseHttpUrl('TELEGRAM_API_BASE_URL', value)
  return value.replace(/\/+$/, '')
}

/** Telegram chat ids: integers (groups negative, supergroups and channels -100…). */
export const isChatId = (id: string) => /^-?\d{1,20}$/.test(id)

export function behaviour(settings: Settings, extra: Readonly<TelegramExtra>): Behaviour {
  const requireMention = envBoolean(settings, 'TELEGRAM_REQUIRE_MENTION', extra.require_mention ?? true)
  const free = settings.env('TELEGRAM_FREE_RESPONSE_CHATS')
  const freeResponseChats = parseIdList(free !== undefined ? free : extra.free_response_chats)
  for (const id of freeResponseChats) {
    if (!isChatId(id)) throw new ConfigError(`TELEGRAM_FREE_RESPONSE_CHATS: "${id}" is not a chat id (a group's id is a negative number, e.g. -1001234567890)`)
  }
  return { requireMention, freeResponseChats }
}

/**
 * Allowlist entries that can never match (Telegram authorises on numeric ids; an @username or a name
 * is not one): one warning each, so a typo does not pass for a silent refusal.
 */
export function allowlistWarnings(settings: Settings): string[] {
  const warnings: string[] = []
  for (const name of ['ALLOWED_USERS', 'GROUP_ALLOWED_USERS']) {
    for (const entry of parseIdList(platformSetting(settings, PLATFORM, name))) {
      if (entry !== '*' && !isChatId(entry)) warnings.push(`TELEGRAM_${name}: "${entry}" is not a numeric Telegram id and never matches (a user's id comes from @userinfobot, or approve their pairing code)`)
    }
  }
  return warnings
}
