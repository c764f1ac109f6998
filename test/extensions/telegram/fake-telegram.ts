// A loopback fake of Telegram's Bot API for the real grammy client (node:http on 127.0.0.1 port 0):
// POST /bot<token>/<method> with JSON (multipart for uploads), answered `{ok, result}` or `{ok: false,
// error_code, description, parameters}` as Telegram does; files under /file/bot<token>/<path>.
// getMe, deleteWebhook, getUpdates (long polling with offsets confirming updates; a second poller
// terminates the first with 409), sendMessage (MarkdownV2 parsed as Telegram does, forum topics),
// sendChatAction, get/set/deleteMyCommands per scope, getFile and the download of a voice note,
// sendVoice and sendAudio. Updates are injected by the test; failures (409, 429 retry_after, rejected
// entities, a deleted topic, a blocked chat) are queued per method; an outage cuts every connection
// for a while. Every request is recorded; a wrong token gets 401.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseMarkdownV2 } from './markdown-v2-check.ts'
import { pollUntil } from '../../helpers/until.ts'

export const TOKEN = '7000000001:AAFakeTelegramBotToken_0123456789abcdefXYZ'
export const BOT = { id: 7000000001, is_bot: true, first_name: 'Agent', username: 'agent_test_bot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false }
export const USERS = {
  alice: { id: 111111111, is_bot: false, first_name: 'Alice', username: 'alice' },
  bob: { id: 222222222, is_bot: false, first_name: 'Bob', last_name: 'Builder' },
  mallory: { id: 333333333, is_bot: false, first_name: 'Mallory', username: 'mallory' },
  otherBot: { id: 444444444, is_bot: true, first_name: 'Helper', username: 'helper_bot' },
} as const
export type UserKey = keyof typeof USERS
export const GROUPS = {
  general: { id: -1001000000001, type: 'supergroup', title: 'General' },
  free: { id: -1001000000002, type: 'supergroup', title: 'Free talk' },
  forum: { id: -1001000000003, type: 'supergroup', title: 'Forum', is_forum: true },
} as const
export type GroupKey = keyof typeof GROUPS

export interface ApiRequest {
  method: string
  body: any
  status: number
}

export interface Sent {
  chatId: string
  text: string
  /** The text a person sees (MarkdownV2 rendered). */
  plain: string
  parseMode?: string
  threadId?: number
}

export interface Upload {
  method: string
  chatId: string
  filename: string
  data: Uint8Array
  threadId?: number
}

/** The bytes of every voice note a user sends (not real audio: the test's transcriber reads them). */
export const VOICE_BYTES = new TextEncoder().encode('OggS fake voice note: what is the weather like')

export interface Failure {
  code: number
  description: string
  retryAfter?: number
  migrateTo?: number
}

export interface MessageOptions {
  from?: UserKey
  /** A group (default: the sender's private chat). */
  group?: GroupKey
  text?: string
  /** Prefix the text with `@agent_test_bot ` and its mention entity. */
  mention?: boolean
  /** A reply to one of the bot's messages (or a user's). */
  replyTo?: 'bot' | UserKey
  /** A forum topic id (with is_topic_message). */
  topic?: number
  voice?: boolean
  document?: { file_name: string; mime_type: string; file_size: number }
}

export interface FakeTelegram {
  readonly apiBase: string
  readonly requests: ApiRequest[]
  readonly sent: Sent[]
  /** Voice notes and audio files the bot sent. */
  readonly uploads: Upload[]
  readonly actions: Array<{ chatId: string; action: string; threadId?: number }>
  /** The command menu per scope type (`all_private_chats`, `all_group_chats`, `default`). */
  readonly menus: Map<string, Array<{ command: string; description: string }>>
  /** Queues an update with a message; returns the message id. */
  message(options: MessageOptions): number
  /** Accepted messages to a chat, as read (rendered). */
  posted(chatId: number | string): string[]
  /** The next `count` calls of `method` fail with `failure`. */
  fail(method: string, count: number, failure: Failure): void
  /** Sending into this topic answers 400 message thread not found. */
  deleteTopic(threadId: number): void
  /** getUpdates calls waiting now. */
  polling(): number
  /** The offset Telegram was last given (updates below it are confirmed, forgotten). */
  confirmed(): number
  /** The id of the last update queued. */
  lastUpdate(): number
  /** For `ms`, every connection is cut (the poll in flight too), as when the network is down. */
  outage(ms: number): void
  /** Changes the token the fake accepts. */
  setToken(token: string): void
  until(check: () => boolean, ms?: number): Promise<boolean>
  close(): Promise<void>
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** The fields of a multipart/form-data body (a file field has its filename). */
function parseMultipart(raw: Buffer, contentType: string): Map<string, { data: Buffer; filename?: string }> {
  const fields = new Map<string, { data: Buffer; filename?: string }>()
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/.exec(contentType)
  if (!boundary) return fields
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`)
  let at = raw.indexOf(delimiter)
  while (at !== -1) {
    const next = raw.indexOf(delimiter, at + delimiter.length)
    if (next === -1) break
    const part = raw.subarray(at + delimiter.length, next)
    const headerEnd = part.indexOf('\r\n\r\n')
    if (headerEnd !== -1) {
      const headers = part.subarray(0, headerEnd).toString('utf8')
      const name = /(?:^|[;\s])name="([^"]*)"/.exec(headers)?.[1]
      // grammy writes `filename=r.ogg` without quotes; browsers quote it.
      const file = /filename=(?:"([^"]*)"|([^;\r\n]+))/.exec(headers)
      const filename = file ? (file[1] ?? file[2]) : undefined
      let data = part.subarray(headerEnd + 4)
      if (data.subarray(-2).toString() === '\r\n') data = data.subarray(0, -2)
      if (name) fields.set(name, { data: Buffer.from(data), ...(filename !== undefined ? { filename } : {}) })
    }
    at = next
  }
  return fields
}

export async function startFakeTelegram(options: { token?: string } = {}): Promise<FakeTelegram> {
  let token = options.token ?? TOKEN
  const requests: ApiRequest[] = []
  const sent: Sent[] = []
  const actions: FakeTelegram['actions'] = []
  const menus = new Map<string, Array<{ command: string; description: string }>>()
  const failures = new Map<string, Failure[]>()
  const deletedTopics = new Set<number>()
  const files = new Map<string, { path: string; data: Uint8Array }>()
  const uploads: Upload[] = []
  const updates: any[] = []
  let nextUpdate = 1000
  let nextMessage = 5000
  let confirmed = 0
  let waiting: { res: ServerResponse; offset: number; timer: NodeJS.Timeout } | undefined
  let closed = false
  let outageUntil = 0

  const answer = (res: ServerResponse, request: ApiRequest, result: unknown) => {
    request.status = 200
    json(res, 200, { ok: true, result })
  }
  const refuse = (res: ServerResponse, request: ApiRequest, failure: Failure) => {
    request.status = failure.code
    const parameters = { ...(failure.retryAfter !== undefined ? { retry_after: failure.retryAfter } : {}), ...(failure.migrateTo !== undefined ? { migrate_to_chat_id: failure.migrateTo } : {}) }
    json(res, failure.code, { ok: false, error_code: failure.code, description: failure.description, ...(Object.keys(parameters).length ? { parameters } : {}) })
  }
  const pending = (offset: number) => updates.filter((u) => u.update_id >= offset)

  function release(): void {
    if (!waiting) return
    const list = pending(waiting.offset)
    if (!list.length) return
    const { res, timer } = waiting
    waiting = undefined
    clearTimeout(timer)
    json(res, 200, { ok: true, result: list })
  }

  function getUpdates(res: ServerResponse, request: ApiRequest): void {
    const offset = Number(request.body.offset ?? confirmed)
    if (offset > confirmed) {
      confirmed = offset
      // Confirmed updates are forgotten, as Telegram does.
      for (let i = updates.length - 1; i >= 0; i--) if (updates[i].update_id < offset) updates.splice(i, 1)
    }
    if (waiting) {
      // A second poller: Telegram terminates the earlier request.
      const { res: earlier, timer } = waiting
      waiting = undefined
      clearTimeout(timer)
      json(earlier, 409, { ok: false, error_code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' })
    }
    request.status = 200
    const list = pending(offset)
    const timeout = Number(request.body.timeout ?? 0)
    if (list.length || timeout <= 0) return json(res, 200, { ok: true, result: list })
    const timer = setTimeout(() => {
      if (waiting?.res === res) waiting = undefined
      json(res, 200, { ok: true, result: [] })
    }, Math.min(timeout, 50) * 1000)
    waiting = { res, offset, timer }
    res.on('close', () => {
      if (waiting?.res === res) {
        clearTimeout(waiting.timer)
        waiting = undefined
      }
    })
  }

  function sendMessage(res: ServerResponse, request: ApiRequest): void {
    const { chat_id, text, parse_mode, message_thread_id } = request.body
    if (typeof text !== 'string' || text.length === 0) return refuse(res, request, { code: 400, description: 'Bad Request: message text is empty' })
    let plain = text
    if (parse_mode === 'MarkdownV2') {
      const parsed = parseMarkdownV2(text)
      if (!parsed.ok) return refuse(res, request, { code: 400, description: parsed.error })
      plain = parsed.plain
    }
    if (plain.length > 4096) return refuse(res, request, { code: 400, description: 'Bad Request: message is too long' })
    if (message_thread_id !== undefined && deletedTopics.has(message_thread_id)) return refuse(res, request, { code: 400, description: 'Bad Request: message thread not found' })
    sent.push({ chatId: String(chat_id), text, plain, ...(parse_mode ? { parseMode: parse_mode } : {}), ...(message_thread_id !== undefined ? { threadId: message_thread_id } : {}) })
    answer(res, request, { message_id: ++nextMessage, date: Math.floor(Date.now() / 1000), chat: { id: Number(chat_id), type: Number(chat_id) < 0 ? 'supergroup' : 'private' }, from: BOT, text: plain })
  }

  /** A file download (`/file/bot<token>/<path>`): the bytes a message's file_id stands for. */
  function download(res: ServerResponse, request: ApiRequest, path: string): void {
    const file = [...files.values()].find((f) => f.path === path)
    if (!file) return refuse(res, request, { code: 404, description: 'Not Found' })
    request.status = 200
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.data.length })
    res.end(file.data)
  }

  /** sendVoice / sendAudio: multipart with the file, as grammy uploads an InputFile. */
  async function sendFile(res: ServerResponse, request: ApiRequest, method: string, raw: Buffer, contentType: string): Promise<void> {
    const form = parseMultipart(raw, contentType)
    const field = method === 'sendVoice' ? 'voice' : 'audio'
    const value = form.get(field)
    const reference = value?.filename === undefined ? value?.data.toString('utf8') : undefined
    const attached = reference?.startsWith('attach://') ? form.get(reference.slice('attach://'.length)) : value
    if (!attached || attached.filename === undefined) return refuse(res, request, { code: 400, description: `Bad Request: there is no ${field} in the request` })
    const chatId = form.get('chat_id')?.data.toString('utf8') ?? ''
    const thread = form.get('message_thread_id')?.data.toString('utf8')
    const data = new Uint8Array(attached.data)
    request.body = { chat_id: chatId, ...(thread ? { message_thread_id: Number(thread) } : {}), filename: attached.filename, bytes: data.length }
    uploads.push({ method, chatId, filename: attached.filename, data, ...(thread ? { threadId: Number(thread) } : {}) })
    answer(res, request, { message_id: ++nextMessage, date: Math.floor(Date.now() / 1000), chat: { id: Number(chatId), type: 'private' }, from: BOT })
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks)
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url ?? '')
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '')
    const contentType = req.headers['content-type'] ?? ''
    let body: any = {}
    try {
      body = raw.length && contentType.includes('json') ? JSON.parse(raw.toString('utf8')) : {}
    } catch {
      body = {}
    }
    if (fileMatch) {
      const request: ApiRequest = { method: 'file', body: { path: fileMatch[2] }, status: 0 }
      requests.push(request)
      if (decodeURIComponent(fileMatch[1]!) !== token) return refuse(res, request, { code: 401, description: 'Unauthorized' })
      return download(res, request, fileMatch[2]!)
    }
    const request: ApiRequest = { method: match?.[2] ?? req.url ?? '', body, status: 0 }
    requests.push(request)
    if (Date.now() < outageUntil) {
      request.status = -1
      return void res.socket?.destroy()
    }
    if (!match) return refuse(res, request, { code: 404, description: 'Not Found' })
    if (decodeURIComponent(match[1]!) !== token) return refuse(res, request, { code: 401, description: 'Unauthorized' })
    const method = match[2]!
    const queued = failures.get(method)
    if (queued?.length) return refuse(res, request, queued.shift()!)
    const scope = (body.scope?.type as string | undefined) ?? 'default'
    switch (method) {
      case 'getMe':
        return answer(res, request, BOT)
      case 'getFile': {
        const file = files.get(body.file_id)
        if (!file) return refuse(res, request, { code: 400, description: 'Bad Request: invalid file_id' })
        return answer(res, request, { file_id: body.file_id, file_unique_id: `u-${body.file_id}`, file_size: file.data.length, file_path: file.path })
      }
      case 'sendVoice':
      case 'sendAudio':
        return sendFile(res, request, method, raw, contentType)
      case 'deleteWebhook':
        return answer(res, request, true)
      case 'getUpdates':
        return getUpdates(res, request)
      case 'sendMessage':
        return sendMessage(res, request)
      case 'sendChatAction':
        actions.push({ chatId: String(body.chat_id), action: body.action, ...(body.message_thread_id !== undefined ? { threadId: body.message_thread_id } : {}) })
        return answer(res, request, true)
      case 'getMyCommands':
        return answer(res, request, menus.get(scope) ?? [])
      case 'setMyCommands': {
        const commands = body.commands as Array<{ command: string; description: string }>
        if (!Array.isArray(commands) || commands.length > 100) return refuse(res, request, { code: 400, description: 'Bad Request: too many commands' })
        for (const c of commands) {
          if (!/^[a-z0-9_]{1,32}$/.test(c.command)) return refuse(res, request, { code: 400, description: 'Bad Request: BOT_COMMAND_INVALID' })
          if (!c.description || c.description.length > 256) return refuse(res, request, { code: 400, description: 'Bad Request: command description is invalid' })
        }
        menus.set(scope, commands.map((c) => ({ command: c.command, description: c.description })))
        return answer(res, request, true)
      }
      case 'deleteMyCommands':
        menus.delete(scope)
        return answer(res, request, true)
      default:
        return refuse(res, request, { code: 404, description: 'Not Found: method not found' })
    }
  }

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port

  return {
    apiBase: `http://127.0.0.1:${port}`,
    requests,
    sent,
    uploads,
    actions,
    menus,
    message(o) {
      const from = USERS[o.from ?? 'alice']
      const chat = o.group ? GROUPS[o.group] : { id: from.id, type: 'private', first_name: from.first_name }
      let text = o.text ?? ''
      const entities: any[] = []
      if (o.mention) {
        text = `@${BOT.username} ${text}`
        entities.push({ type: 'mention', offset: 0, length: BOT.username.length + 1 })
      }
      const command = /^\/\S+/.exec(text)
      if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length })
      const id = ++nextMessage
      const message: any = { message_id: id, date: Math.floor(Date.now() / 1000), chat, from }
      if (o.voice) {
        const fileId = `voice-${id}`
        files.set(fileId, { path: `voice/file_${id}.oga`, data: VOICE_BYTES })
        message.voice = { file_id: fileId, file_unique_id: `v${id}`, duration: 3, mime_type: 'audio/ogg', file_size: VOICE_BYTES.length }
      }
      else if (o.document) message.document = { file_id: 'doc-1', file_unique_id: 'd1', ...o.document }
      if (text) message[o.document ? 'caption' : 'text'] = text
      if (entities.length) message[o.document ? 'caption_entities' : 'entities'] = entities
      if (o.topic !== undefined) Object.assign(message, { message_thread_id: o.topic, is_topic_message: true })
      if (o.replyTo) message.reply_to_message = { message_id: id - 1, date: message.date, chat, from: o.replyTo === 'bot' ? BOT : USERS[o.replyTo], text: 'earlier' }
      updates.push({ update_id: ++nextUpdate, message })
      release()
      return id
    },
    posted: (chatId) => sent.filter((s) => s.chatId === String(chatId)).map((s) => s.plain),
    fail(method, count, failure) {
      failures.set(method, [...(failures.get(method) ?? []), ...Array.from({ length: count }, () => failure)])
    },
    deleteTopic: (threadId) => void deletedTopics.add(threadId),
    polling: () => (waiting ? 1 : 0),
    confirmed: () => confirmed,
    lastUpdate: () => nextUpdate,
    outage(ms) {
      outageUntil = Date.now() + ms
      if (!waiting) return
      const { res, timer } = waiting
      waiting = undefined
      clearTimeout(timer)
      res.socket?.destroy()
    },
    setToken(value) {
      token = value
    },
    until: pollUntil,
    async close() {
      if (closed) return
      closed = true
      if (waiting) clearTimeout(waiting.timer)
      waiting = undefined
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
