// The Slack adapter's settings: whether it runs, the two tokens (the bot token for the Web API, the
// app-level token that opens Socket Mode), the Web API base URL (a test fake overrides it), the
// behaviour in channels (mention required, free-response channels) and the slash command's name. The
// environment wins over platforms.slack.extra; the tokens come from the environment or .env only.

import { ConfigError, envBoolean, parseHttpUrl, parseIdList, platformEnabled, type Settings } from 'agent/sdk'

export const PLATFORM = 'slack'
export const DEFAULT_API_BASE = 'https://slack.com/api/'
export const DEFAULT_SLASH_COMMAND = '/agent'
/** Slack's rule for a slash command: a slash, then at most 32 lowercase letters, digits, - or _. */
const SLASH_NAME = /^\/[a-z0-9_-]{1,32}$/

export interface SlackExtra {
  require_mention?: boolean
  free_response_channels?: string[] | string
  slash_command: string
  app_name: string
  connect_timeout_seconds: number
  reconnect_watchdog_seconds: number
}

export interface SlackConfig {
  enabled?: boolean
  extra: SlackExtra
}

export interface Behaviour {
  /** Channel messages must mention the bot, except in free-response channels and threads it is in. */
  requireMention: boolean
  /** Channel ids where every message is answered. */
  freeResponseChannels: Set<string>
}

/** platforms.slack.enabled false turns it off; true, SLACK_ENABLED or both tokens turn it on. */
export function slackEnabled(settings: Settings): boolean {
  return platformEnabled(settings, PLATFORM, 'SLACK_ENABLED', () => Boolean(settings.env('SLACK_BOT_TOKEN')?.trim() && settings.env('SLACK_APP_TOKEN')?.trim()))
}

function token(settings: Settings, name: string, prefix: string, where: string, what: string): string {
  const value = settings.env(name)?.trim()
  if (!value) throw new ConfigError(`${what} needs ${name} (${where})`)
  // Said without the value: a token pasted into the wrong variable is still a secret.
  if (!value.startsWith(prefix)) throw new ConfigError(`${name} must start with "${prefix}" (${where})`)
  return value
}

/** The bot token (xoxb-…): OAuth & Permissions → Bot User OAuth Token. */
export function botToken(settings: Settings, what: string): string {
  return token(settings, 'SLACK_BOT_TOKEN', 'xoxb-', 'the Bot User OAuth Token: api.slack.com/apps → your app → OAuth & Permissions', what)
}

/** The app-level token (xapp-…) with the connections:write scope, for Socket Mode. */
export function appToken(settings: Settings, what: string): string {
  return token(settings, 'SLACK_APP_TOKEN', 'xapp-', 'an app-level token with connections:write: your app → Basic Information → App-Level Tokens', what)
}

export function apiBase(settings: Settings): string {
  const value = settings.env('SLACK_API_BASE_URL')?.trim() || DEFAULT_API_BASE
  parseHttpUrl('SLACK_API_BASE_URL', value)
  return value.endsWith('/') ? value : `${value}/`
}

/** Conversation ids: C (channels), G (private channels, group DMs), D (direct messages). */
export const isChannelId = (id: string) => /^[CGD][A-Z0-9]{6,}$/.test(id)
/** Where a message can be posted: a conversation, or a user id (Slack opens the DM with the app). */
export const isTargetId = (id: string) => isChannelId(id) || isMemberId(id)
export const isMemberId = (id: string) => /^[UW][A-Z0-9]{6,}$/.test(id)
/** A message timestamp, which is also a thread's id. */
export const isTimestamp = (ts: string) => /^\d{9,12}\.\d{1,9}$/.test(ts)

export function behaviour(settings: Settings, extra: Readonly<SlackExtra>): Behaviour {
  const requireMention = envBoolean(settings, 'SLACK_REQUIRE_MENTION', extra.require_mention ?? true)
  const free = settings.env('SLACK_FREE_RESPONSE_CHANNELS')
  const freeResponseChannels = parseIdList(free !== undefined ? free : extra.free_response_channels)
  for (const id of freeResponseChannels) {
    if (!isChannelId(id)) throw new ConfigError(`SLACK_FREE_RESPONSE_CHANNELS: "${id}" is not a channel id (channel name → About → Channel ID, e.g. C0123456789)`)
  }
  return { requireMention, freeResponseChannels }
}

/** The slash command's name, `/agent` unless platforms.slack.extra.slash_command says otherwise. */
export function slashCommandName(extra: Readonly<Partial<SlackExtra>> | undefined): string {
  const raw = (extra?.slash_command ?? DEFAULT_SLASH_COMMAND).trim().toLowerCase()
  const name = raw.startsWith('/') ? raw : `/${raw}`
  if (!SLASH_NAME.test(name)) throw new ConfigError(`platforms.slack.extra.slash_command: "${raw}" is not a Slack slash command (a slash, then up to 32 of a-z, 0-9, - and _)`)
  return name
}

/**
 * Allowlist entries that can never match (the gateway authorises on member ids like U0123456789; a
 * @handle, a name or an e-mail address is not one): one warning each, so a typo is not a silent refusal.
 */
export function allowlistWarnings(settings: Settings): string[] {
  const warnings: string[] = []
  for (const name of ['SLACK_ALLOWED_USERS', 'SLACK_GROUP_ALLOWED_USERS']) {
    for (const entry of parseIdList(settings.env(name))) {
      if (entry !== '*' && !isMemberId(entry)) warnings.push(`${name}: "${entry}" is not a Slack member id and never matches (profile → ⋮ → Copy member ID, e.g. U0123456789; or approve their pairing code)`)
    }
  }
  return warnings
}
