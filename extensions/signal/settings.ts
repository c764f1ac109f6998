// What the Signal adapter reads from the environment and config.yaml: whether it runs, the
// signal-cli daemon's HTTP address (SIGNAL_HTTP_URL, else platforms.signal.extra.http_url) and the
// account (SIGNAL_ACCOUNT, else extra.account). Bad or missing values are ConfigErrors: no retry.

import { ConfigError, parseHttpUrl, platformEnabled, type Settings } from 'agent/sdk'

export const PLATFORM = 'signal'

export interface SignalExtra {
  http_url?: string
  account?: string
  /** The daemon's event stream quiet this long: the adapter checks the daemon, and reconnects if that fails. */
  stale_after_seconds: number
  /** Reconnect delays of the event stream: the first, and the cap of the exponential backoff. */
  reconnect_initial_ms: number
  reconnect_max_ms: number
  /** Attachments larger than this are not downloaded (the agent is told they were skipped). */
  max_attachment_bytes: number
  /** How often the typing indicator is renewed while a turn runs (Signal hides it after about 15 s). */
  typing_renew_ms: number
}

export interface SignalConfig {
  enabled?: boolean
  extra: SignalExtra
}

export interface Daemon {
  /** Base URL without a trailing slash. */
  url: string
  /** The account's phone number (E.164) or its ACI (UUID) for an account without a number. */
  account: string
}

const env = (settings: Settings, name: string) => settings.env(name)?.trim() || undefined
const extraOf = (settings: Settings) => settings.get<Partial<SignalExtra>>('platforms.signal.extra') ?? {}

/** platforms.signal.enabled false turns it off; true, SIGNAL_ENABLED or an URL with an account turn it on. */
export function signalEnabled(settings: Settings): boolean {
  return platformEnabled(settings, PLATFORM, 'SIGNAL_ENABLED', () => Boolean((env(settings, 'SIGNAL_HTTP_URL') ?? extraOf(settings).http_url) && (env(settings, 'SIGNAL_ACCOUNT') ?? extraOf(settings).account)))
}

export const E164 = /^\+[1-9]\d{6,14}$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function daemonFrom(settings: Settings): Daemon {
  const extra = extraOf(settings)
  const raw = env(settings, 'SIGNAL_HTTP_URL') ?? extra.http_url?.trim()
  if (!raw) throw new ConfigError('the Signal adapter needs SIGNAL_HTTP_URL: the address of `signal-cli daemon --http` (e.g. http://127.0.0.1:8080)')
  const url = parseHttpUrl('SIGNAL_HTTP_URL', raw)
  if (url.username || url.password) throw new ConfigError('SIGNAL_HTTP_URL must not contain credentials')
  if (url.search || url.hash) throw new ConfigError('SIGNAL_HTTP_URL must be the daemon\'s base address, without a query')
  const account = (env(settings, 'SIGNAL_ACCOUNT') ?? extra.account?.trim())?.replace(/[\s().-]/g, '')
  if (!account) throw new ConfigError('the Signal adapter needs SIGNAL_ACCOUNT: the phone number signal-cli is registered or linked with (E.164, e.g. +15551234567)')
  if (!E164.test(account) && !UUID.test(account)) throw new ConfigError('SIGNAL_ACCOUNT must be a phone number in E.164 form (+ and 7 to 15 digits) or the account\'s UUID')
  return { url: `${url.origin}${url.pathname}`.replace(/\/+$/, ''), account }
}
