// What the WhatsApp adapter reads: whether it runs (explicitly, or once `agent gateway whatsapp
// setup` has linked a session), the mode, the reply header (WHATSAPP_REPLY_PREFIX, else
// platforms.whatsapp.extra.reply_prefix, resolved by the bridge's own rule), and where the bridge,
// its session and its log live.

import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { platformEnabled, type Settings } from 'agent/sdk'
import { resolveReplyPrefix } from './bridge/filter.mjs'

export const PLATFORM = 'whatsapp'
export type Mode = 'self-chat' | 'bot'

export interface WhatsAppExtra {
  /** self-chat: the agent lives in the owner's own account; bot: a number of its own. */
  mode: Mode
  reply_prefix?: string
  /** Another bridge program speaking the same protocol (default the bundled bridge/bridge.mjs). */
  bridge_script?: string
  health_interval_ms: number
  start_timeout_ms: number
  restart_initial_ms: number
  restart_max_ms: number
  poll_timeout_ms: number
}

export interface WhatsAppConfig {
  enabled?: boolean
  extra: WhatsAppExtra
}

export const BRIDGE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'bridge')
export const BUNDLED_BRIDGE = join(BRIDGE_DIR, 'bridge.mjs')
export const authDir = (home: string) => join(home, 'whatsapp', 'auth')
export const mediaDir = (home: string) => join(home, 'cache', 'whatsapp')
export const bridgeLogPath = (home: string) => join(home, 'logs', 'whatsapp-bridge.log')
export const isLinked = (home: string) => existsSync(join(authDir(home), 'creds.json'))
export const bridgeInstalled = () => existsSync(join(BRIDGE_DIR, 'node_modules', 'baileys', 'package.json'))

/** platforms.whatsapp.enabled false turns it off; true, WHATSAPP_ENABLED or a linked session turn it on. */
export function whatsappEnabled(settings: Settings): boolean {
  return platformEnabled(settings, PLATFORM, 'WHATSAPP_ENABLED', () => isLinked(settings.home))
}

/** The header the bridge puts on answers in the owner's own chat: unset → default, '' → none, `\n` → newline. */
export function replyPrefix(settings: Settings, extra: Readonly<Partial<WhatsAppExtra>>): string {
  const fromEnv = settings.env('WHATSAPP_REPLY_PREFIX')
  return resolveReplyPrefix(fromEnv !== undefined ? fromEnv : extra.reply_prefix)
}
