// Talking to the Bot API: grammy loaded on first use, an Api whose sends wait out the 429s Telegram
// asks them to (getUpdates has its own policy), and the sending of an answer's parts: MarkdownV2
// first, plain text when Telegram cannot parse the markup, the chat itself when the forum topic is
// gone, the new supergroup when a group was upgraded, parts an earlier attempt of the gateway's outbox
// already sent skipped, and failures told apart (DeliveryDeferred: try again later; E_DELIVERY:
// refused); audio sent as a voice bubble or a file; a user's file downloaded.

import { AgentError, DeliveryDeferred, errorMessage, type Logger } from 'agent/sdk'
import type { Api, GrammyError as GrammyErrorClass } from 'grammy'
import type { Part } from './format.ts'

export type Grammy = typeof import('grammy')

/** A 429 on a send is waited out this many times when Telegram asks for at most MAX_RETRY_AFTER_S. */
const SEND_RETRIES = 3
const MAX_RETRY_AFTER_S = 60
/** Queued replies whose sent parts are remembered (the oldest are forgotten). */
const MAX_REMEMBERED = 500
const DOWNLOAD_TIMEOUT_MS = 60_000

export async function loadGrammy(): Promise<Grammy> {
  const mod = (await import('grammy')) as Grammy & { default?: Grammy }
  // grammy is CommonJS: depending on the loader its exports are the namespace or its default.
  return mod.Api ? mod : mod.default!
}

/** A short reason for a failed call (redact it: a network error may name the URL). */
export function reasonOf(error: unknown, GrammyError: typeof GrammyErrorClass | undefined): string {
  if (GrammyError && error instanceof GrammyError) return `${error.error_code}: ${error.description}`
  return errorMessage(error)
}

/** grammy's Api for `token` with 429 answers on sends waited out. */
export function createApi(grammy: Grammy, token: string, base: string, timeoutSeconds: number, log: () => Logger): Api {
  const api = new grammy.Api(token, { apiRoot: base, timeoutSeconds })
  api.config.use(async (previous, method, payload, signal) => {
    for (let attempt = 0; ; attempt++) {
      const result = await previous(method, payload, signal)
      const wait = result.ok ? undefined : result.parameters?.retry_after
      if (result.ok || result.error_code !== 429 || method === 'getUpdates' || attempt >= SEND_RETRIES || wait === undefined || wait > MAX_RETRY_AFTER_S) return result
      log().info(`Telegram rate limit on ${method}: retrying in ${wait} s as asked`)
      await new Promise((resolve) => setTimeout(resolve, wait * 1000))
    }
  })
  return api
}

export interface PartTarget {
  api: Api
  grammy: Grammy
  token: string
  chatId: string
  threadId?: string
  /** The outbox's idempotency key of this reply, when it has one. */
  key?: string
}

export class PartSender {
  /** Parts of a queued reply already sent, by idempotency key. */
  private readonly sent = new Map<string, number>()

  constructor(
    private readonly log: () => Logger,
    private readonly clean: (text: string, token: string) => string,
  ) {}

  /** Sends the parts in order (see the file header); throws on the first part that cannot go. */
  async send(target: PartTarget, parts: Part[]): Promise<void> {
    const { api, grammy, token, key } = target
    let chatId = target.chatId
    let thread = target.threadId && /^\d+$/.test(target.threadId) ? Number(target.threadId) : undefined
    const first = key ? (this.sent.get(key) ?? 0) : 0
    for (const [index, part] of parts.entries()) {
      if (index < first) continue
      let markup = part.markdown !== ''
      for (;;) {
        try {
          const text = markup ? part.markdown : part.plain
          await api.sendMessage(chatId, text, { ...(markup ? { parse_mode: 'MarkdownV2' as const } : {}), ...(thread ? { message_thread_id: thread } : {}), link_preview_options: { is_disabled: true } })
          break
        } catch (error) {
          const description = error instanceof grammy.GrammyError ? error.description : ''
          if (markup && /can't parse entities|can't find end of/i.test(description)) {
            this.log().debug(`Telegram refused the MarkdownV2 of a part (${this.clean(description, token)}); sending it as plain text`)
            markup = false
            continue
          }
          const migrated = error instanceof grammy.GrammyError ? error.parameters.migrate_to_chat_id : undefined
          if (migrated !== undefined && String(migrated) !== chatId) {
            this.log().warn(`Telegram chat ${chatId} became the supergroup ${migrated}; answering there (update any setting naming the old id, such as TELEGRAM_HOME_CHANNEL)`)
            chatId = String(migrated)
            continue
          }
          if (thread && /thread not found|TOPIC_DELETED|TOPIC_CLOSED/i.test(description)) {
            this.log().info(`the forum topic ${thread} of chat ${chatId} is gone; answering in the chat itself`)
            thread = undefined
            continue
          }
          throw this.failure(error, { ...target, chatId }, parts.length > 1 ? ` (part ${index + 1} of ${parts.length})` : '')
        }
      }
      if (key) this.remember(key, index + 1)
    }
    if (key) this.sent.delete(key)
  }

  /** One audio file: a voice bubble (OGG/Opus) or an audio file, in the topic when there is one. */
  async sendAudio(target: PartTarget, audio: { data: Uint8Array; filename: string; voice: boolean }): Promise<void> {
    const { api, grammy } = target
    const thread = target.threadId && /^\d+$/.test(target.threadId) ? { message_thread_id: Number(target.threadId) } : {}
    const file = new grammy.InputFile(audio.data, audio.filename)
    try {
      if (audio.voice) await api.sendVoice(target.chatId, file, thread)
      else await api.sendAudio(target.chatId, file, thread)
    } catch (error) {
      throw this.failure(error, target, ' (audio)')
    }
  }

  /** Network trouble, 5xx and a 429 not waited out may pass: DeliveryDeferred; the rest is refused. */
  private failure(error: unknown, target: PartTarget, which: string): Error {
    const { grammy, chatId, token } = target
    const reason = this.clean(reasonOf(error, grammy.GrammyError), token)
    const code = error instanceof grammy.GrammyError ? error.error_code : undefined
    if (code !== undefined && code < 500 && code !== 429) return new AgentError('E_DELIVERY', `Telegram refused the message to chat ${chatId}${which}: ${reason}`, { cause: error })
    const retryAfter = error instanceof grammy.GrammyError ? error.parameters.retry_after : undefined
    return new DeliveryDeferred(`Telegram cannot take the message to chat ${chatId}${which} now: ${reason}`, { cause: error, ...(code === 429 ? { code: 'E_RATE_LIMITED' as const } : {}), ...(retryAfter !== undefined ? { retryAfterMs: retryAfter * 1000 } : {}) })
  }

  private remember(key: string, count: number): void {
    this.sent.delete(key)
    this.sent.set(key, count)
    if (this.sent.size > MAX_REMEMBERED) this.sent.delete(this.sent.keys().next().value!)
  }
}

/**
 * The bytes of a file a user sent: getFile, then the download URL (it holds the token: it is never
 * logged, and errors name the file id only). Refused beyond `maxBytes`.
 */
export async function downloadFile(target: { api: Api; base: string; token: string }, fileId: string, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array> {
  const file = await target.api.getFile(fileId)
  if (!file.file_path) throw new AgentError('E_NETWORK', `Telegram gave no download path for file ${fileId}`)
  if (file.file_size !== undefined && file.file_size > maxBytes) throw new AgentError('E_USAGE', `file ${fileId} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`)
  let response: Response
  try {
    response = await fetch(`${target.base}/file/bot${target.token}/${file.file_path}`, { signal: signal ?? AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) })
  } catch (error) {
    throw new AgentError('E_NETWORK', `cannot download file ${fileId} from Telegram (${(error as { cause?: { code?: string } }).cause?.code ?? 'network error'})`)
  }
  if (!response.ok) throw new AgentError('E_NETWORK', `Telegram answered ${response.status} to the download of file ${fileId}`)
  const data = new Uint8Array(await response.arrayBuffer())
  if (data.length > maxBytes) throw new AgentError('E_USAGE', `file ${fileId} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`)
  return data
}
