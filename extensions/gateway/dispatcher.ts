// Inbound routing: every chat message passes the inboundMessage hook, then authorisation (default
// deny, DM pairing), then is either a slash command from the central registry (run at once, never
// queued behind a running turn, so /approve and /stop work while the agent waits) or a prompt queued
// on the chat's own session. Replies go back through the delivery service.

import {
  AgentError, errorMessage, GATEWAY_AUTH_SERVICE, gatewaySessionKey, helpText, knownSecretsRedactor, publicErrorText, redactPhonesIn, redactSecrets, resolveSlash, RUNTIME_SERVICE, SESSIONS_SERVICE, speakReply,
  type AgentRuntime, type CommandDefinition, type DispatchResult, type GatewayAdapter, type GatewayAuthService,
  type GatewayInbound, type HookHandles, type Logger, type RunResult, type Services, type SessionStore, type Settings, type ToolDefinition,
} from 'agent/sdk'
import { ChatState, type ChatHost } from './chat.ts'
import type { ContinuityStore } from './continuity-store.ts'
import type { Outbox } from './outbox.ts'
import { resetReason, type ResetPolicy, type RoutingStore } from './routing.ts'

export interface DispatcherOptions {
  services: Services
  settings: Settings
  hooks: HookHandles
  log: Logger
  commands(): CommandDefinition[]
  tools(): ToolDefinition[]
  adapter(name: string): GatewayAdapter | undefined
  routing: RoutingStore
  policy: ResetPolicy
  typingDelay(): number
  /** Message ids seen and prompts not yet answered, durable (continuity-store.ts). */
  store: ContinuityStore
  /** Every message to a chat goes through it (outbox.ts): queued before it is sent. */
  outbox: Outbox
  /** Platforms that get no "session reset" notice. */
  quietResetPlatforms: string[]
  now?: () => number
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
  })

/** Log-safe description of a chat: phone numbers redacted. */
export const describe = (source: { platform: string; userId?: string; chatId?: string }) => redactPhonesIn(`${source.platform}:${source.chatId ?? source.userId ?? '?'}`)

export class Dispatcher implements ChatHost {
  readonly services: Services
  readonly settings: Settings
  private readonly chats = new Map<string, ChatState>()
  /** Chats whose route is being read (chat()). */
  private readonly opening = new Map<string, Promise<ChatState>>()
  /** Inbox rows queued by this process (a replay at start skips them). */
  private readonly queuedHere = new Set<number>()
  /** Turns queued by this process and not finished (drain() waits for them). */
  private readonly unfinished = new Set<Promise<void>>()
  /** Draining: new prompts are recorded as pending, not run (the next holder or start runs them). */
  private draining = false
  private readonly now: () => number

  constructor(private readonly options: DispatcherOptions) {
    this.services = options.services
    this.settings = options.settings
    this.now = options.now ?? Date.now
  }

  tools(): ToolDefinition[] {
    return this.options.tools()
  }

  async chat(source: GatewayInbound['source']): Promise<ChatState> {
    const key = gatewaySessionKey(source)
    const known = this.chats.get(key)
    if (known) {
      known.source = source
      return known
    }
    // One read of the route per new chat: later messages wait on the same promise, so they are
    // queued in the order they came (PostgreSQL answers concurrent reads in any order).
    let opening = this.opening.get(key)
    if (!opening) {
      opening = this.options.routing
        .get(key)
        .then((route) => {
          const chat = new ChatState(key, source, this)
          chat.sessionId = route?.sessionId
          this.chats.set(key, chat)
          return chat
        })
        .finally(() => this.opening.delete(key))
      this.opening.set(key, opening)
    }
    const chat = await opening
    chat.source = source
    return chat
  }

  async sessionFor(source: GatewayInbound['source']): Promise<string | undefined> {
    // The store, not this instance's memory: another instance may have moved the chat on since.
    return (await this.options.routing.get(gatewaySessionKey(source)))?.sessionId
  }

  async dispatch(message: GatewayInbound): Promise<DispatchResult> {
    const sessionKey = gatewaySessionKey(message.source)
    const settled = (status: DispatchResult['status'], done: Promise<void> = Promise.resolve()): DispatchResult => ({ status, sessionKey, done })
    const text = message.text?.trim() ?? ''
    if (!text) return settled('ignored')
    // Recorded before anything else: the same platform message delivered again (a reconnect, a restart) is not answered twice.
    const inboxId = await this.options.store.claim(message.source.platform, message.messageId, message.receivedAt)
    if (inboxId === undefined) {
      this.options.log.debug(`ignored ${describe(message.source)} message ${message.messageId}: already seen`)
      return settled('ignored')
    }
    let queued = false
    try {
      const verdict = await this.options.hooks.inboundMessage.promise({ source: message.source, text, messageId: message.messageId, receivedAt: message.receivedAt ?? this.now() })
      if (verdict?.handled) return settled('handled')

      const auth = this.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
      const decision = auth ? await auth.authorize(message.source) : { allowed: false as const, reason: 'no authorisation service loaded', action: 'ignore' as const }
      if (!decision.allowed) {
        this.options.log.info(`denied a message from ${describe({ platform: message.source.platform, userId: message.source.userId })}: ${decision.reason}`)
        if (decision.action === 'pair' && auth) return settled(await this.offerPairing(auth, message))
        return settled('denied')
      }

      const chat = await this.chat(message.source)
      const slash = resolveSlash(this.options.commands(), text, 'gateway')
      if (slash && 'command' in slash) return settled('command', this.runCommand(chat, slash.command, slash.invokedAs, slash.args))
      if (slash && slash.unknown === 'help') return settled('command', this.send(chat, helpText(this.options.commands(), 'gateway')))
      // Kept (until answered) with the known secrets replaced by their markers: a pasted secret never
      // reaches the store, nor its free pages once the row is cleared. A replay after a restart runs
      // the redacted text, which the model reads as it reads this turn's: the runtime redacts the
      // input before the model or the session store sees it (runtime/run.ts).
      await this.options.store.markPending(inboxId, message.source, knownSecretsRedactor(this.settings)(text))
      queued = true
      if (this.draining) return settled('queued')
      return settled('queued', this.enqueue(chat, text, inboxId))
    } finally {
      if (!queued) await this.options.store.settle(inboxId)
    }
  }

  private enqueue(chat: ChatState, text: string, inboxId: number): Promise<void> {
    this.queuedHere.add(inboxId)
    const done = chat.enqueue(text, inboxId).done.finally(() => this.queuedHere.delete(inboxId))
    this.unfinished.add(done)
    const forget = () => void this.unfinished.delete(done)
    done.then(forget, forget)
    return done
  }

  /**
   * Graceful drain (SIGTERM): stops starting turns and resolves when the turns already queued here
   * have ended. A prompt arriving meanwhile stays pending in the inbox, so whoever runs the adapter
   * next (another instance taking the lease over, or this one restarted) answers it.
   */
  async drain(): Promise<void> {
    this.draining = true
    while (this.unfinished.size > 0) await Promise.allSettled([...this.unfinished])
  }

  /**
   * Prompts an earlier process queued but never answered (killed mid-turn): queued again on their
   * chats, if their senders are still allowed. Of `platforms` only when given (several instances:
   * the adapters this one took over). Returns how many.
   */
  async replayPending(platforms?: readonly string[]): Promise<number> {
    if (this.draining) return 0
    let count = 0
    for (const prompt of await this.options.store.pendingPrompts(platforms)) {
      if (this.queuedHere.has(prompt.id)) continue
      const auth = this.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
      if (!(await auth?.authorize(prompt.source))?.allowed) {
        await this.options.store.settle(prompt.id)
        this.options.log.info(`dropped an unanswered message from ${describe(prompt.source)} queued before the restart: its sender is no longer allowed`)
        continue
      }
      void this.enqueue(await this.chat(prompt.source), prompt.text, prompt.id)
      count++
    }
    if (count > 0) this.options.log.info(`answering ${count} message(s) left unanswered by the last run`)
    return count
  }

  private async offerPairing(auth: GatewayAuthService, message: GatewayInbound): Promise<'pairing' | 'denied'> {
    let offer: { code: string; expiresAt: number } | undefined
    try {
      offer = await auth.requestPairing(message.source)
    } catch (error) {
      this.options.log.warn(`pairing unavailable: ${errorMessage(error)}`)
      return 'denied'
    }
    if (!offer) return 'denied'
    const minutes = Math.round((offer.expiresAt - this.now()) / 60_000)
    await this.deliver(message.source, `You are not authorised to use this agent yet. Pairing code: ${offer.code}\nAsk the owner to run: agent gateway pair approve ${offer.code}\n(The code expires in ${minutes} minutes.)`)
    return 'pairing'
  }

  private async runCommand(chat: ChatState, command: CommandDefinition, invokedAs: string, args: string): Promise<void> {
    try {
      await command.slash!({ args, invokedAs, surface: 'gateway', reply: (text) => this.send(chat, text), chat: chat.controller(), source: chat.source })
    } catch (error) {
      await this.send(chat, `/${invokedAs}: ${this.safe(errorMessage(error))}`)
    }
  }

  async send(chat: ChatState, text: string, settles?: number): Promise<void> {
    await this.deliver(chat.source, text, settles)
  }

  /** Through the outbox: written before it is sent, retried while the adapter is away; never rejects. */
  private async deliver(source: GatewayInbound['source'], text: string, settles?: number): Promise<void> {
    const chatId = source.chatId ?? source.userId
    if (!chatId) {
      this.options.log.error(`reply to ${describe(source)} failed: the message came from no chat and no user`)
      if (settles !== undefined) await this.options.store.settle(settles)
      return
    }
    await this.options.outbox.deliver({ platform: source.platform, chatId, ...(source.threadId ? { threadId: source.threadId } : {}), text }, settles)
  }

  safe(text: string): string {
    return redactPhonesIn(redactSecrets(text, this.settings.secretValues()))
  }

  async adoptSession(chat: ChatState, sessionId: string): Promise<void> {
    chat.sessionId = sessionId
    await this.options.routing.set(chat.key, { sessionId, lastActivity: this.now() })
  }

  async forgetSession(chat: ChatState, reason: string): Promise<void> {
    const previous = chat.sessionId
    chat.sessionId = undefined
    chat.cachedTitle = undefined
    await this.options.routing.delete(chat.key)
    if (previous) await this.services.get<SessionStore>(SESSIONS_SERVICE)?.end(previous, reason).catch(() => undefined)
  }

  private runtime(): AgentRuntime {
    const runtime = this.services.get<AgentRuntime>(RUNTIME_SERVICE)
    if (!runtime) throw new AgentError('E_DEPENDENCY', 'the agent runtime is not loaded')
    return runtime
  }

  private runRequest(chat: ChatState, prompt: string, signal: AbortSignal, sessionId: string | undefined) {
    const model = chat.modelOverride
    return {
      input: prompt,
      sessionId,
      // The thread too: what the run sends back to its chat (approval prompts, background notices) goes there.
      source: { platform: chat.source.platform, userId: chat.source.userId, chatId: chat.source.chatId, ...(chat.source.threadId ? { threadId: chat.source.threadId } : {}) },
      signal,
      ...(model ? { provider: model.customName ? `custom:${model.customName}` : model.provider, model: model.model } : {}),
      ...(chat.effort ? { reasoningEffort: chat.effort } : {}),
      ...(chat.disabledTools.size > 0 ? { disableTools: [...chat.disabledTools] } : {}),
      extra: { gateway: { sessionKey: chat.key, source: chat.source } },
    }
  }

  /**
   * Never rejects (the chat's queue runs it unawaited): every failure becomes a reply and a log line.
   * The answer settles the prompt's inbox row in the commit that queues it (`inboxId`), so a turn cut
   * off by a crash runs again after the restart and one that answered is never answered twice.
   */
  async runTurn(chat: ChatState, prompt: string, signal: AbortSignal, inboxId?: number): Promise<void> {
    // The answer itself may not be queued (the database is gone: shutdown, an outage): logged, the
    // prompt stays pending and is run again by the next start.
    await this.turn(chat, prompt, signal, inboxId).catch((error) => this.options.log.error(`turn in ${describe(chat.source)}: the answer could not be queued: ${this.safe(errorMessage(error))}`))
  }

  private async turn(chat: ChatState, prompt: string, signal: AbortSignal, inboxId?: number): Promise<void> {
    let settles = inboxId
    const answer = async (text: string) => {
      const id = settles
      settles = undefined
      await this.send(chat, text, id)
    }
    try {
      const route = await this.options.routing.get(chat.key)
      // The stored route is the truth: another instance may have run this chat since (or reset it).
      chat.sessionId = route?.sessionId
      if (route) {
        const reason = resetReason(this.options.policy, route.lastActivity, this.now())
        if (reason) {
          await this.forgetSession(chat, reason === 'idle' ? 'idle_reset' : 'daily_reset')
          chat.resetUsage()
          if (!this.options.quietResetPlatforms.includes(chat.source.platform)) {
            await this.send(chat, `Session automatically reset (${reason === 'idle' ? 'idle too long' : 'daily reset'}); starting a fresh conversation.`)
          }
        }
      }
      const typing = this.showTyping(chat, signal)
      const result = await this.runtime().run(this.runRequest(chat, prompt, signal, chat.sessionId))
      await this.adoptSession(chat, result.sessionId)
      chat.recordUsage(result)
      await typing
      if (signal.aborted) return
      if (!result.answer.trim()) return
      // A chat in /voice mode hears the answer first (sdk/voice.ts); a failing voice leaves the text.
      await speakReply(this.options.services, this.options.adapter(chat.source.platform), chat.source, prompt, result.answer, this.options.log)
      await answer(result.answer)
    } catch (error) {
      if (signal.aborted) return void (await answer('Stopped.'))
      this.options.log.error(`turn in ${describe(chat.source)} failed: ${this.safe(errorMessage(error))}`)
      // The chat hears what went wrong, not where: endpoints, hosts and paths stay in the log.
      await answer(`Sorry, that failed: ${publicErrorText(this.safe(errorMessage(error)))}`)
    } finally {
      if (settles !== undefined) await this.options.store.settle(settles).catch((error) => this.options.log.error(`turn in ${describe(chat.source)}: ${this.safe(errorMessage(error))}`))
    }
  }

  /** Platforms that show typing get the indicator and a human-like pause before the reply. */
  private async showTyping(chat: ChatState, signal: AbortSignal): Promise<void> {
    const adapter = this.options.adapter(chat.source.platform)
    if (!adapter?.typing) return
    await adapter.typing(chat.source.chatId ?? chat.source.userId ?? '').catch(() => undefined)
    await sleep(this.options.typingDelay(), signal)
  }

  async runIsolated(chat: ChatState, prompt: string): Promise<RunResult> {
    try {
      const result = await this.runtime().run({ ...this.runRequest(chat, prompt, new AbortController().signal, undefined), sessionId: undefined })
      await this.send(chat, result.answer.trim() ? `Background task finished:\n${result.answer}` : 'Background task finished (no answer).')
      return result
    } catch (error) {
      await this.send(chat, `Background task failed: ${this.safe(errorMessage(error))}`)
      throw error
    }
  }
}
