// What the matrix adapter reads from the environment and config.yaml: whether it is enabled, the
// homeserver URL, and the credentials (an access token, or a user id and password for a login). Bad
// or missing values are ConfigErrors: the gateway does not retry them.

import { ConfigError, parseHttpUrl, platformEnabled, type Settings } from 'agent/sdk'

export const PLATFORM = 'matrix'

export interface MatrixExtra {
  /** Group rooms: answer only when the bot is mentioned (DMs never need a mention). */
  require_mention: boolean
  /** Room ids where every message is answered, mention or not. */
  free_response_rooms: string[]
  /** Accept invites from users the gateway would answer (auto-join). */
  auto_join: boolean
  max_message_length: number
  /** Long-poll timeout of /sync (ms). */
  sync_timeout_ms: number
  /** How long start() waits for the first sync before giving up (the gateway then retries). */
  start_timeout_ms: number
}

export interface MatrixConfig {
  enabled?: boolean
  extra: MatrixExtra
}

export type Credentials =
  | { kind: 'token'; accessToken: string; userId?: string }
  | { kind: 'password'; userId: string; password: string }

const env = (settings: Settings, name: string) => settings.env(name)?.trim() || undefined

/** platforms.matrix.enabled false turns it off; true, MATRIX_ENABLED or a homeserver with credentials turn it on. */
export function matrixEnabled(settings: Settings): boolean {
  return platformEnabled(settings, 'matrix', 'MATRIX_ENABLED', () => Boolean(env(settings, 'MATRIX_HOMESERVER') && (env(settings, 'MATRIX_ACCESS_TOKEN') || (env(settings, 'MATRIX_USER_ID') && env(settings, 'MATRIX_PASSWORD')))))
}

/** MATRIX_HOMESERVER as a base URL without a trailing slash. */
export function homeserverUrl(settings: Settings): string {
  const value = env(settings, 'MATRIX_HOMESERVER')
  if (!value) throw new ConfigError('the Matrix adapter needs MATRIX_HOMESERVER (the homeserver base URL, e.g. https://matrix.example.org)')
  const url = parseHttpUrl('MATRIX_HOMESERVER', value)
  if (url.username || url.password) throw new ConfigError('MATRIX_HOMESERVER must not contain credentials')
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

/** A Matrix user id: `@localpart:server`. */
export const USER_ID = /^@[^:\s]+:[^\s]+$/

export function credentialsFrom(settings: Settings): Credentials {
  const accessToken = env(settings, 'MATRIX_ACCESS_TOKEN')
  const userId = env(settings, 'MATRIX_USER_ID')
  if (userId && !USER_ID.test(userId)) throw new ConfigError(`MATRIX_USER_ID is not a Matrix user id (@name:server): ${userId}`)
  if (accessToken) return { kind: 'token', accessToken, ...(userId ? { userId } : {}) }
  const password = env(settings, 'MATRIX_PASSWORD')
  if (userId && password) return { kind: 'password', userId, password }
  throw new ConfigError('the Matrix adapter needs MATRIX_ACCESS_TOKEN, or MATRIX_USER_ID and MATRIX_PASSWORD')
}
