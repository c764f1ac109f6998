// The `whatsapp` gateway adapter: starts the bridge process (bridge-process.ts), waits until it
// answers its health check, long-polls its receive queue and hands messages to the gateway, sends
// answers and typing through it; watches it (exit, failing health checks) and restarts it with
// exponential backoff; stops its whole process group. Which messages are input, the reply header
// and the echo guard live in the bridge (bridge/filter.mjs), where the WhatsApp traffic is.

import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  AgentError, backoffDelay, ConfigError, errorMessage, GATEWAY_AUTH_SERVICE, GATEWAY_SERVICE, startOnce,
  type AdapterContext, type AudioCapableAdapter, type GatewayAdapter, type GatewayAuthService, type GatewayService, type Logger, type Services, type Settings,
} from 'agent/sdk'
import { spawnBridge, type BridgeRun } from './bridge-process.ts'
import { withVoiceTranscripts } from './voice-notes.ts'
import type { BridgeMessage } from './client.ts'
import { authorisedId, jidOf, redactedId } from './identity.ts'
import { authDir, BRIDGE_DIR, mediaDir, bridgeInstalled, bridgeLogPath, BUNDLED_BRIDGE, isLinked, PLATFORM, replyPrefix, whatsappEnabled, type WhatsAppConfig } from './settings.ts'

export const MAX_MESSAGE_LENGTH = 4096
/** The bridge exits with this code when the session is not linked or was logged out: restarting would not help. */
const EXIT_NOT_LINKED = 3
const UNHEALTHY_AFTER = 2
const NOT_LINKED = 'WhatsApp is not linked: run `agent gateway whatsapp setup` and scan the QR code with your phone'

interface Running {
  run: BridgeRun
  gateway: GatewayService
  services: Services
  home: string
  log: Logger
  controller: AbortController
  restarts: number
  healthTimer?: NodeJS.Timeout
}

export function createWhatsAppAdapter(config: Readonly<WhatsAppConfig>, settings: Settings, fallbackLog: Logger): GatewayAdapter & AudioCapableAdapter & { stop(): Promise<void>; bridge(): BridgeRun | undefined } {
  const extra = config.extra
  let running: Running | undefined
  const starting = startOnce(start)

  const script = () => extra.bridge_script ?? BUNDLED_BRIDGE
  const bridgeEnv = (home: string) => ({ WHATSAPP_AUTH_DIR: authDir(home), WHATSAPP_MEDIA_DIR: mediaDir(home), WHATSAPP_MODE: extra.mode, WHATSAPP_REPLY_PREFIX: replyPrefix(settings, extra) })

  async function launch(home: string): Promise<BridgeRun> {
    const run = await spawnBridge({ script: script(), cwd: script() === BUNDLED_BRIDGE ? BRIDGE_DIR : home, env: bridgeEnv(home), logFile: bridgeLogPath(home), startTimeoutMs: extra.start_timeout_ms })
    try {
      const health = await run.client.health(extra.start_timeout_ms)
      if (health.status === 'needs_pairing' || health.status === 'logged_out') throw new ConfigError(NOT_LINKED)
    } catch (error) {
      await run.stop()
      throw error
    }
    return run
  }

  async function deliver(state: Running, message: BridgeMessage): Promise<void> {
    const userId = authorisedId(settings, message.chatType, [message.senderId, ...(message.senderAliases ?? [])])
    const source = { platform: PLATFORM, userId, ...(message.senderName ? { userName: message.senderName } : {}), chatId: message.chatId, chatType: message.chatType }
    // Voice notes are transcribed for a sender the gateway would answer, never for a stranger.
    const allowed = (await state.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)?.authorize(source))?.allowed
    const result = await state.gateway.dispatch({
      source,
      text: allowed ? await withVoiceTranscripts(message.text, mediaDir(state.home), state.services, state.log) : message.text,
      messageId: message.id,
      receivedAt: message.timestamp,
    })
    state.log.debug(`WhatsApp message ${message.id} from ${redactedId(userId)} in ${message.chatType}${message.selfChat ? ' (own chat)' : ''} (${message.text.length} characters): ${result.status}`)
  }

  async function receive(state: Running): Promise<void> {
    const { signal } = state.controller
    while (!signal.aborted) {
      let messages: BridgeMessage[]
      try {
        messages = await state.run.client.poll(extra.poll_timeout_ms, signal)
      } catch (error) {
        if (signal.aborted) break
        state.log.debug(`polling the WhatsApp bridge failed: ${errorMessage(error)}`)
        await sleep(250, undefined, { signal }).catch(() => undefined)
        continue
      }
      for (const message of messages) await deliver(state, message).catch((error: unknown) => state.log.error(`WhatsApp message ${message.id} failed: ${errorMessage(error)}`))
    }
  }

  /** Restarts the bridge after it ended, with backoff, unless we are stopping or it cannot help. */
  function supervise(state: Running, home: string): void {
    const run = state.run
    void run.exited.then(async (code) => {
      if (state.controller.signal.aborted || state.run !== run) return
      if (code === EXIT_NOT_LINKED) return state.log.error(`the WhatsApp bridge stopped: ${NOT_LINKED}`)
      while (!state.controller.signal.aborted) {
        const delay = backoffDelay(state.restarts++, { baseDelayMs: extra.restart_initial_ms, maxDelayMs: extra.restart_max_ms })
        state.log.warn(`the WhatsApp bridge exited (${code}); restarting it in ${(delay / 1000).toFixed(1)} s`)
        await sleep(delay, undefined, { signal: state.controller.signal }).catch(() => undefined)
        if (state.controller.signal.aborted) return
        try {
          state.run = await launch(home)
          state.log.info(`the WhatsApp bridge is running again (pid ${state.run.child.pid})`)
          if (state.controller.signal.aborted) return void (await state.run.stop())
          // Replies queued while it was down go out now.
          state.gateway.connected(PLATFORM)
          return supervise(state, home)
        } catch (error) {
          if (ConfigError.isInstance(error)) return state.log.error(`the WhatsApp bridge stopped: ${errorMessage(error)}`)
          state.log.warn(`the WhatsApp bridge did not come back: ${errorMessage(error)}`)
        }
      }
    })
  }

  function watchHealth(state: Running): void {
    let failures = 0
    let checking = false
    state.healthTimer = setInterval(() => {
      if (checking) return
      checking = true
      const run = state.run
      run.client.health().then(
        (health) => {
          failures = 0
          if (health.status === 'open') state.restarts = 0
        },
        (error: unknown) => {
          if (++failures < UNHEALTHY_AFTER || state.controller.signal.aborted || run !== state.run) return
          failures = 0
          state.log.warn(`the WhatsApp bridge fails its health check (${errorMessage(error)}); stopping it for a restart`)
          void run.stop()
        },
      ).finally(() => (checking = false))
    }, extra.health_interval_ms)
    state.healthTimer.unref()
  }

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) return
    const home = ctx.settings.home
    if (script() === BUNDLED_BRIDGE && !bridgeInstalled()) throw new ConfigError('the WhatsApp bridge is not installed: run `agent gateway whatsapp setup` (it installs the bridge, then shows the QR code to link your phone)')
    if (!isLinked(home)) throw new ConfigError(NOT_LINKED)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the WhatsApp adapter needs the gateway service')
    const run = await launch(home)
    const state: Running = { run, gateway, services: ctx.services, home: ctx.settings.home, log: ctx.log, controller: new AbortController(), restarts: 0 }
    running = state
    supervise(state, home)
    watchHealth(state)
    void receive(state)
    ctx.log.info(`the WhatsApp bridge is running (pid ${run.child.pid}, ${extra.mode} mode, log ${bridgeLogPath(home)})`)
  }

  return {
    name: PLATFORM,
    description: 'WhatsApp through a bridge process on WhatsApp Web (baileys)',
    enabled: whatsappEnabled,
    maxMessageLength: MAX_MESSAGE_LENGTH,
    bridge: () => running?.run,
    async start(ctx) {
      return starting.run(ctx)
    },
    async stop() {
      await starting.settled()
      const state = running
      running = undefined
      if (!state) return
      state.controller.abort()
      clearInterval(state.healthTimer)
      await state.run.stop()
      state.log.info('the WhatsApp bridge stopped')
    },
    async typing(chatId) {
      const state = running
      if (!state) return
      await state.run.client.typing(jidOf(chatId), 'composing').catch((error: unknown) => state.log.debug(`typing in ${redactedId(chatId)} failed: ${errorMessage(error)}`))
    },
    async send(chatId, text) {
      const jid = jidOf(chatId)
      const state = running
      if (!state) throw new AgentError('E_UNAVAILABLE', 'WhatsApp messages are sent by the running gateway (its bridge holds the session): start `agent gateway run`')
      await state.run.client.send(jid, text).catch((error: unknown) => {
        throw new AgentError('E_DELIVERY', `cannot send to WhatsApp ${redactedId(jid)}: ${errorMessage(error)}`, { cause: error })
      })
      state.run.client.typing(jid, 'paused').catch(() => undefined)
    },
    /** A spoken reply (/voice), before the text: written under the media folder for the bridge to send. */
    async sendAudio(chatId, audio) {
      const jid = jidOf(chatId)
      const state = running
      if (!state) throw new AgentError('E_UNAVAILABLE', 'WhatsApp audio is sent by the running gateway')
      const dir = mediaDir(state.home)
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const path = join(dir, `reply-${Date.now()}-${Math.random().toString(36).slice(2, 8)}-${audio.filename.replace(/[^\w.-]/g, '_')}`)
      await writeFile(path, audio.data, { mode: 0o600 })
      try {
        await state.run.client.media(jid, { path, mimetype: audio.mimeType, fileName: audio.filename })
      } catch (error) {
        throw new AgentError('E_DELIVERY', `cannot send audio to WhatsApp ${redactedId(jid)}: ${errorMessage(error)}`, { cause: error })
      } finally {
        await rm(path, { force: true })
      }
    },
  }
}
