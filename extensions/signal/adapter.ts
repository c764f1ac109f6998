// The `signal` gateway adapter: checks the signal-cli daemon (`daemon --http`), keeps its event
// stream open (stream.ts), hands messages to the gateway (envelope.ts decides which), shows typing
// and renews it while a turn runs, and sends answers with JSON-RPC `send`, remembering their
// timestamps so their echoes (Note to Self, linked devices) are not read as new messages.

import {
  AgentError, ConfigError, errorMessage, GATEWAY_SERVICE, redactPhonesIn, startOnce, transcribeAudio,
  type AdapterContext, type AudioCapableAdapter, type GatewayAdapter, type InboundAudio, type GatewayInbound, type GatewayService, type Logger, type Settings,
} from 'agent/sdk'
import { describeAttachments } from './attachments.ts'
import { envelopeOf, readEnvelope, SentTimestamps, type Identity } from './envelope.ts'
import { toSignalText } from './format.ts'
import { redacted, targetOf, type Target } from './ids.ts'
import { Catchup } from './resume.ts'
import { checkDaemon, rpc } from './rpc.ts'
import { daemonFrom, PLATFORM, signalEnabled, type Daemon, type SignalConfig } from './settings.ts'
import { openEventStream, type EventStream } from './stream.ts'

export const MAX_MESSAGE_LENGTH = 8000
/** Signal clients hide a typing indicator after about 15 s: renewed before that (extra.typing_renew_ms), for at most this long. */
const TYPING_MAX_MS = 5 * 60_000

interface Running {
  daemon: Daemon
  me: Identity
  gateway: GatewayService
  log: Logger
  home: string
  /** Voice notes and audio attachments become text through the stt service (sdk/voice.ts). */
  transcribe(audio: InboundAudio): Promise<string>
  controller: AbortController
  stream: EventStream
  catchup: Catchup
  /** Removes the link from the gateway's abort signal to ours. */
  unlink(): void
}

const params = (target: Target) => ('groupId' in target ? { groupId: target.groupId } : { recipient: [target.recipient] })

export function createSignalAdapter(config: Readonly<SignalConfig>, settings: Settings, fallbackLog: Logger): GatewayAdapter & AudioCapableAdapter & { stop(): Promise<void> } {
  const extra = config.extra
  let running: Running | undefined
  const starting = startOnce(start)
  const sent = new SentTimestamps()
  const typingTimers = new Map<string, { timer: NodeJS.Timeout; until: number }>()
  const log = () => running?.log ?? fallbackLog

  function stopTyping(chatId: string): void {
    const entry = typingTimers.get(chatId)
    if (!entry) return
    clearInterval(entry.timer)
    typingTimers.delete(chatId)
  }

  async function onEvent(state: Running, event: unknown, eventId: string | undefined): Promise<void> {
    const envelope = envelopeOf(event)
    const cursor = { ...(eventId ? { event: eventId } : {}), ...(typeof envelope?.timestamp === 'number' ? { ts: envelope.timestamp } : {}) }
    if (!envelope) {
      state.catchup.advance(cursor)
      return state.log.debug('ignored a Signal event without an envelope')
    }
    // Our own UUID, learnt from our own sync messages: the echo rules then recognise it too.
    if (envelope.syncMessage && envelope.sourceNumber === state.me.account && envelope.sourceUuid) state.me.uuid = envelope.sourceUuid.toLowerCase()
    const reading = readEnvelope(envelope, state.me, sent)
    const from = redacted(envelope.sourceNumber || envelope.sourceUuid || envelope.source)
    if (!reading.ok) {
      state.catchup.advance(cursor)
      if (reading.unsupported) return state.gateway.dropped(PLATFORM, { reason: `${reading.reason} (not supported)`, chatId: reading.unsupported.chatId, userId: reading.unsupported.sender, ...(envelope.timestamp ? { messageId: `${reading.unsupported.sender}:${envelope.timestamp}` } : {}) })
      return state.log.debug(`ignored a Signal envelope from ${from}: ${reading.reason}`)
    }
    const message = reading.message
    let text = message.text
    if (message.attachments.length) {
      const lines = await describeAttachments(state.daemon, state.home, message.attachments, extra.max_attachment_bytes, state.transcribe)
      text = [text, ...lines].filter(Boolean).join('\n')
    }
    const inbound: GatewayInbound = {
      source: {
        platform: PLATFORM,
        userId: message.sender,
        ...(message.senderName ? { userName: message.senderName } : {}),
        chatId: message.chatId,
        chatType: message.chatType,
      },
      text,
      messageId: `${message.sender}:${message.timestamp}`,
      receivedAt: message.timestamp,
    }
    if (state.catchup.isBacklog(inbound)) return state.catchup.add(inbound, cursor)
    await state.catchup.flush()
    const result = await state.gateway.dispatch(inbound)
    state.catchup.advance(cursor)
    state.log.debug(`Signal ${message.kind} from ${redacted(message.sender)} in ${message.chatType} ${redacted(message.chatId)} (${text.length} characters): ${result.status}`)
  }

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) return
    const daemon = daemonFrom(ctx.settings)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the Signal adapter needs the gateway service')
    await checkDaemon(daemon, { firstCheck: true, signal: ctx.signal })
    const controller = new AbortController()
    const stopWith = () => controller.abort()
    ctx.signal.addEventListener('abort', stopWith, { once: true })
    const me: Identity = { account: daemon.account }
    const catchup = await Catchup.open(gateway.resumePoint(PLATFORM), gateway, ctx.log, Date.now())
    const unlink = () => ctx.signal.removeEventListener('abort', stopWith)
    const state = { daemon, me, gateway, log: ctx.log, home: ctx.settings.home, transcribe: (audio: InboundAudio) => transcribeAudio(ctx.services, audio, ctx.log), controller, catchup, unlink } as Running
    const lastEventId = catchup.lastEventId()
    state.stream = openEventStream({
      daemon,
      log: ctx.log,
      onEvent: (event, id) => onEvent(state, event, id),
      ...(lastEventId ? { lastEventId } : {}),
      // Replies queued while the daemon was unreachable go out now.
      onReconnect: () => gateway.connected(PLATFORM),
      initialDelayMs: extra.reconnect_initial_ms,
      maxDelayMs: extra.reconnect_max_ms,
      staleAfterMs: extra.stale_after_seconds * 1000,
      signal: controller.signal,
    })
    try {
      await state.stream.connected
    } catch (error) {
      controller.abort()
      catchup.dispose()
      unlink()
      throw new AgentError('E_UNAVAILABLE', errorMessage(error), { cause: error })
    }
    running = state
    ctx.log.info(`connected to the signal-cli daemon at ${daemon.url} as ${redacted(daemon.account)}`)
  }

  return {
    name: PLATFORM,
    description: 'Signal through the signal-cli daemon\'s HTTP interface (event stream in, JSON-RPC out)',
    enabled: signalEnabled,
    maxMessageLength: MAX_MESSAGE_LENGTH,
    async start(ctx) {
      return starting.run(ctx)
    },
    async stop() {
      await starting.settled()
      const state = running
      running = undefined
      for (const chatId of [...typingTimers.keys()]) stopTyping(chatId)
      if (!state) return
      state.controller.abort()
      state.unlink()
      await state.stream.done
      state.catchup.dispose()
      state.log.info('disconnected from the signal-cli daemon')
    },
    async typing(chatId) {
      const state = running
      if (!state) return
      const target = targetOf(chatId)
      const show = () => rpc(state.daemon, 'sendTyping', params(target), { timeoutMs: 10_000 }).catch((error: unknown) => state.log.debug(`typing in ${redacted(chatId)} failed: ${errorMessage(error)}`))
      stopTyping(chatId)
      const until = Date.now() + TYPING_MAX_MS
      const timer = setInterval(() => {
        if (running !== state || Date.now() > until) return stopTyping(chatId)
        void show()
      }, extra.typing_renew_ms)
      timer.unref()
      typingTimers.set(chatId, { timer, until })
      await show()
    },
    async send(chatId, text) {
      const target = targetOf(chatId)
      const daemon = running?.daemon ?? daemonFrom(settings)
      stopTyping(chatId)
      const { text: message, styles } = toSignalText(text)
      const result = await rpc<{ timestamp?: number }>(daemon, 'send', { ...params(target), message, ...(styles.length ? { textStyle: styles } : {}) }).catch((error: unknown) => {
        throw new AgentError('E_DELIVERY', `cannot send to Signal ${redacted(chatId)}: ${redactPhonesIn(errorMessage(error))}`, { cause: error })
      })
      sent.remember(result?.timestamp)
      log().debug(`sent a Signal message to ${redacted(chatId)} (${text.length} characters)`)
    },
    /** A spoken reply (/voice), before the text: an attachment given to the daemon as a data URI. */
    async sendAudio(chatId, audio) {
      const target = targetOf(chatId)
      const daemon = running?.daemon ?? daemonFrom(settings)
      const attachment = `data:${audio.mimeType};filename=${audio.filename.replace(/[^\w.-]/g, '_')};base64,${Buffer.from(audio.data).toString('base64')}`
      const result = await rpc<{ timestamp?: number }>(daemon, 'send', { ...params(target), message: '', attachments: [attachment] }).catch((error: unknown) => {
        throw new AgentError('E_DELIVERY', `cannot send audio to Signal ${redacted(chatId)}: ${redactPhonesIn(errorMessage(error))}`, { cause: error })
      })
      sent.remember(result?.timestamp)
    },
  }
}
