// The Discord adapter's settings: whether it runs, the bot token, the REST base URL (a test fake
// overrides it) and the behaviour in servers (require a mention, free-response channels). The
// environment wins over platforms.discord.extra; the token comes from the environment or .env only.

import { ConfigError, envBoolean, parseHttpUrl, parseIdList, platformEnabled, type Settings } from 'agent/sdk'

export const PLATFORM = 'discord'
export const DEFAULT_API_BASE = 'https://discord.com/api'

export interface DiscordExtra {
  require_mention?: boolean
  free_response_channels?: string[] | string
  slash_commands: boolean
  connect_timeout_seconds: number
  reconnect_watchdog_seconds: number
}

export interface DiscordConfig {
  enabled?: boolean
  extra: DiscordExtra
}

export interface Behaviour {
  /** Server messages must mention the bot (or reply to it), except in free-response channels. */
  requireMention: boolean
  /** Channel ids (a thread counts when its parent is listed) where every message is answered. */
  freeResponseChannels: Set<string>
}

/** platforms.discord.enabled false turns it off; true, DISCORD_ENABLED or a bot token turn it on. */
export function discordEnabled(settings: Settings): boolean {
  return platformEnabled(settings, 'discord', 'DISCORD_ENABLED', () => Boolean(settings.env('DISCORD_BOT_TOKEN')?.trim()))
}

export function botToken(settings: Settings, what: string): string {
  // A pasted "Bot <token>" works too: the prefix is the header's, not the token's.
  const token = settings.env('DISCORD_BOT_TOKEN')?.trim().replace(/^Bot\s+/i, '')
  if (!token) throw new ConfigError(`${what} needs DISCORD_BOT_TOKEN (the bot's token: Developer Portal → your application → Bot → Reset Token)`)
  return token
}

export function apiBase(settings: Settings): string {
  const value = settings.env('DISCORD_API_BASE_URL')?.trim() || DEFAULT_API_BASE
  parseHttpUrl('DISCORD_API_BASE_URL', value)
  return value.replace(/\/+$/, '')
}

export function behaviour(settings: Settings, extra: Readonly<DiscordExtra>): Behaviour {
  const requireMention = envBoolean(settings, 'DISCORD_REQUIRE_MENTION', extra.require_mention ?? true)
  const free = settings.env('DISCORD_FREE_RESPONSE_CHANNELS')
  const freeResponseChannels = parseIdList(free !== undefined ? free : extra.free_response_channels)
  for (const id of freeResponseChannels) {
    if (!/^\d{15,22}$/.test(id)) throw new ConfigError(`DISCORD_FREE_RESPONSE_CHANNELS: "${id}" is not a channel id (enable Developer Mode, then right-click the channel → Copy Channel ID)`)
  }
  return { requireMention, freeResponseChannels }
}

/** Discord ids are snowflakes: 15 to 22 digits. */
export const isSnowflake = (id: string) => /^\d{15,22}$/.test(id)
