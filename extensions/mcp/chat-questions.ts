// An MCP server's elicitation in a messaging chat (a gateway run, no surface prompt): the sdk's
// ElicitationForm asked one question per message through the delivery service, answered by the
// next messages of the same user in the same chat — taken by the inboundMessage hook before the
// gateway sees them. One form per chat and user at a time; unanswered for `timeoutMs`: cancelled.

import { DELIVERY_SERVICE, ElicitationForm, errorMessage, type DeliveryService, type ElicitationAnswer, type ElicitationRequest, type InboundMessage, type Logger, type MessageSource, type Services } from 'agent/sdk'

/** Platforms whose runs have no person reading along to answer. */
const UNATTENDED = new Set(['cli', 'local', 'cron', 'webhook', 'api_server', 'delegation', 'mcp', 'acp'])

interface Open {
  form: ElicitationForm
  source: MessageSource
  resolve(answer: ElicitationAnswer): void
  timer: NodeJS.Timeout
}

const keyOf = (s: Pick<MessageSource, 'platform' | 'chatId' | 'userId'>) => `${s.platform}\0${s.chatId ?? ''}\0${s.userId ?? ''}`

export class ChatQuestions {
  private readonly open = new Map<string, Open>()

  constructor(private readonly deps: { services: Pick<Services, 'get'>; log: Logger; timeoutMs: number }) {}

  /** Whether a run from this source can be asked in its chat. */
  canAsk(source: MessageSource | undefined): source is MessageSource {
    return Boolean(source?.chatId && source.userId && !UNATTENDED.has(source.platform) && this.deps.services.get(DELIVERY_SERVICE))
  }

  async ask(source: MessageSource, request: ElicitationRequest): Promise<ElicitationAnswer> {
    const key = keyOf(source)
    if (this.open.has(key)) return { action: 'decline' }
    const form = new ElicitationForm(request)
    const answer = new Promise<ElicitationAnswer>((resolve) => {
      const timer = setTimeout(() => this.finish(key, { action: 'cancel' }, 'no answer in time: cancelled'), this.deps.timeoutMs)
      timer.unref()
      this.open.set(key, { form, source, resolve, timer })
    })
    if (!(await this.send(source, form.intro().join('\n')))) this.finish(key, { action: 'decline' })
    return answer
  }

  /** An inbound message: true (handled) when it answers a form that waits for this user in this chat. */
  async take(message: InboundMessage): Promise<boolean> {
    const key = keyOf(message.source)
    const current = this.open.get(key)
    if (!current) return false
    const step = current.form.answer(message.text)
    if ('done' in step) {
      const { action } = step.done
      this.finish(key, step.done, action === 'accept' ? 'sent' : action === 'decline' ? 'declined' : 'cancelled')
    } else await this.send(current.source, 'ask' in step ? step.ask : step.again)
    return true
  }

  /** Cancels every form (the extension is going away). */
  cancelAll(): void {
    for (const key of [...this.open.keys()]) this.finish(key, { action: 'cancel' })
  }

  private finish(key: string, answer: ElicitationAnswer, note?: string): void {
    const current = this.open.get(key)
    if (!current) return
    this.open.delete(key)
    clearTimeout(current.timer)
    current.resolve(answer)
    if (note) void this.send(current.source, note)
  }

  private async send(source: MessageSource, text: string): Promise<boolean> {
    try {
      await this.deps.services.get<DeliveryService>(DELIVERY_SERVICE)!.send(source, text)
      return true
    } catch (error) {
      this.deps.log.warn(`asking in ${source.platform} chat failed: ${errorMessage(error)}`)
      return false
    }
  }
}
