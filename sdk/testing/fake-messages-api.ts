// A scripted fake of the native vendor's messages API on 127.0.0.1 for tests: POST /v1/messages
// (JSON or server-sent events: message_start, content_block_*, message_delta, message_stop) answering
// ScriptedTurns (text, thinking, tool_use blocks, usage, delays, faults), GET /v1/models, and an
// OAuth refresh endpoint POST /v1/oauth/token. Every request is recorded.

import type { ServerResponse } from 'node:http'
import { openEventStream, sendJson as json, sleep, startLoopbackServer, type RecordedRequest } from './loopback-server.ts'
import type { ScriptedTurn } from './scripted-model.ts'

export interface FakeMessagesApiOptions {
  turns?: ScriptedTurn[]
  models?: string[]
  /** What POST /v1/oauth/token answers (default: a new access token valid for an hour). */
  oauth?: { accessToken?: string; refreshToken?: string; expiresIn?: number; status?: number }
}

export interface FakeMessagesApi {
  /** Origin only (the client appends /v1/messages). */
  readonly url: string
  readonly requests: RecordedRequest[]
  enqueue(...turns: ScriptedTurn[]): void
  close(): Promise<void>
}

function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : []
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m?.role !== 'user') continue
    if (typeof m.content === 'string') return m.content
    const text = (m.content ?? []).filter((b: any) => b?.type === 'text').map((b: any) => b.text).join('')
    if (text) return text
  }
  return ''
}

export async function startFakeMessagesApi(options: FakeMessagesApiOptions = {}): Promise<FakeMessagesApi> {
  const queue: ScriptedTurn[] = [...(options.turns ?? [])]
  const models = options.models ?? ['claude-fake-1']
  let counter = 0

  const server = await startLoopbackServer({}, ({ method, path, body }, res) => {
    if (method === 'GET' && path === '/v1/models') {
      return json(res, 200, { data: models.map((id) => ({ id, type: 'model', display_name: id, created_at: '2025-01-01T00:00:00Z' })), has_more: false, first_id: models[0], last_id: models.at(-1) })
    }
    if (method === 'POST' && path === '/v1/oauth/token') {
      const o = options.oauth ?? {}
      if (o.status && o.status >= 400) return json(res, o.status, { error: 'invalid_grant', error_description: 'refresh token revoked' })
      return json(res, 200, { access_token: o.accessToken ?? `sk-ant-oat01-refreshed-${++counter}`, refresh_token: o.refreshToken ?? `sk-ant-ort01-next-${counter}`, expires_in: o.expiresIn ?? 3600, token_type: 'Bearer' })
    }
    if (method === 'POST' && path === '/v1/messages') {
      const turn = queue.shift() ?? { text: `echo: ${lastUserText(body)}` }
      return answer(res, body, turn, `msg_${++counter}`)
    }
    json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no route ${method} ${path}` } })
  })

  async function answer(res: ServerResponse, body: any, turn: ScriptedTurn, id: string): Promise<void> {
    if (turn.delayMs) await sleep(turn.delayMs)
    if (turn.dropConnection) return void res.socket?.destroy()
    if (turn.status && turn.status >= 400) {
      const type = turn.status === 429 ? 'rate_limit_error' : turn.status >= 500 ? 'api_error' : turn.status === 401 ? 'authentication_error' : 'invalid_request_error'
      return json(res, turn.status, { type: 'error', error: { type, message: turn.error ?? 'scripted failure' } })
    }
    const usage = turn.usage ?? { prompt_tokens: 10, completion_tokens: 5 }
    const blocks: any[] = []
    if (turn.reasoning) blocks.push({ type: 'thinking', thinking: turn.reasoning, signature: 'sig-fake' })
    if (turn.text) blocks.push({ type: 'text', text: turn.text })
    for (const [i, call] of (turn.toolCalls ?? []).entries()) {
      blocks.push({ type: 'tool_use', id: call.id ?? `toolu_${counter}_${i}`, name: call.name, input: typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments })
    }
    const stop = turn.toolCalls?.length ? 'tool_use' : 'end_turn'
    const model = body?.model ?? models[0]
    if (!body?.stream) {
      return json(res, 200, { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens } })
    }
    const event = openEventStream(res)
    const send = (type: string, data: Record<string, unknown>) => event({ type, ...data }, type)
    send('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.prompt_tokens, output_tokens: 1 } } })
    send('ping', {})
    const size = Math.max(1, turn.chunkSize ?? 8)
    for (const [index, block] of blocks.entries()) {
      if (res.destroyed) return
      if (block.type === 'thinking') {
        send('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } })
        for (let i = 0; i < block.thinking.length; i += size) send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking.slice(i, i + size) } })
        send('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } })
      } else if (block.type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } })
        for (let i = 0; i < block.text.length; i += size) {
          send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text.slice(i, i + size) } })
          if (turn.chunkDelayMs) await sleep(turn.chunkDelayMs)
        }
      } else {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } })
        const args = JSON.stringify(block.input)
        const half = Math.ceil(args.length / 2)
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.slice(0, half) } })
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.slice(half) } })
      }
      send('content_block_stop', { index })
    }
    send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.completion_tokens } })
    send('message_stop', {})
    res.end()
  }

  return {
    url: server.origin,
    requests: server.requests,
    enqueue: (...turns) => void queue.push(...turns),
    close: server.close,
  }
}
