// A scripted OpenAI-compatible model server on 127.0.0.1 for tests: chat completions (streamed and
// not) answering with scripted text, tool calls, reasoning, usage, delays and faults, plus /v1/models.
// Every request is recorded so tests can assert what the agent sent.

import type { ServerResponse } from 'node:http'
import { openEventStream, sendJson as json, sleep, startLoopbackServer, type RecordedRequest } from './loopback-server.ts'

export type { RecordedRequest }

export interface ScriptedToolCall {
  /** Omit for a generated id; '' to test providers that send no id. */
  id?: string
  name: string
  arguments: unknown
}

export interface ScriptedTurn {
  text?: string
  toolCalls?: ScriptedToolCall[]
  reasoning?: string
  usage?: { prompt_tokens: number; completion_tokens: number }
  /** Wait before answering (ms). */
  delayMs?: number
  /** Fault: answer with this HTTP status and an OpenAI error body. */
  status?: number
  error?: string
  /** Fault: destroy the connection without answering. */
  dropConnection?: boolean
  /** Streaming: characters per content delta (default 8). */
  chunkSize?: number
  /** Streaming: wait between chunks (ms). */
  chunkDelayMs?: number
}

export interface ScriptedModelOptions {
  turns?: ScriptedTurn[]
  /** Answers when the queue is empty (default: echo the last user message). */
  respond?: (body: any) => ScriptedTurn
  models?: string[]
  /** Keep every request in `requests` (default true). Benchmarks turn it off: tens of thousands of kept bodies slow the garbage collector. */
  record?: boolean
}

export interface ScriptedModelServer {
  /** Base URL including /v1, for OPENAI_BASE_URL. */
  readonly url: string
  readonly requests: RecordedRequest[]
  enqueue(...turns: ScriptedTurn[]): void
  respond(fn: (body: any) => ScriptedTurn): void
  close(): Promise<void>
}

function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : []
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m?.role === 'user') return typeof m.content === 'string' ? m.content : JSON.stringify(m.content)
  }
  return ''
}

export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModelServer> {
  const queue: ScriptedTurn[] = [...(options.turns ?? [])]
  let fallback = options.respond ?? ((body: any) => ({ text: `echo: ${lastUserText(body)}` }))
  const models = options.models ?? ['scripted-model']
  let counter = 0

  const server = await startLoopbackServer({ record: options.record ?? true }, ({ method, path, body }, res) => {
    if (method === 'GET' && path.endsWith('/models')) {
      return json(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' })) })
    }
    if (method === 'POST' && path.endsWith('/chat/completions')) {
      const turn = queue.shift() ?? fallback(body)
      return answer(res, body, turn, `chatcmpl-${++counter}`)
    }
    json(res, 404, { error: { message: `no route ${method} ${path}`, type: 'invalid_request_error' } })
  })

  async function answer(res: ServerResponse, body: any, turn: ScriptedTurn, id: string): Promise<void> {
    if (turn.delayMs) await sleep(turn.delayMs)
    if (turn.dropConnection) return void res.socket?.destroy()
    if (turn.status && turn.status >= 400) return json(res, turn.status, { error: { message: turn.error ?? 'scripted failure', type: 'server_error', code: null } })
    const usage = turn.usage ?? { prompt_tokens: 10, completion_tokens: 5 }
    const fullUsage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }
    const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
      index,
      id: call.id ?? `call_${counter}_${index}`,
      type: 'function' as const,
      function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
    }))
    const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop'
    const model = body?.model ?? models[0]
    if (!body?.stream) {
      const message: Record<string, unknown> = { role: 'assistant', content: turn.text ?? (toolCalls.length ? null : '') }
      if (toolCalls.length) message.tool_calls = toolCalls.map(({ index: _i, ...c }) => c)
      if (turn.reasoning) message.reasoning_content = turn.reasoning
      return json(res, 200, { id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, message, finish_reason: finish }], usage: fullUsage })
    }
    const event = openEventStream(res, { connection: 'keep-alive' })
    const send = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      event({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finishReason }] })
    send({ role: 'assistant', content: '' })
    if (turn.reasoning) send({ reasoning_content: turn.reasoning })
    const text = turn.text ?? ''
    const size = Math.max(1, turn.chunkSize ?? 8)
    for (let i = 0; i < text.length; i += size) {
      if (res.destroyed) return
      send({ content: text.slice(i, i + size) })
      if (turn.chunkDelayMs) await sleep(turn.chunkDelayMs)
    }
    for (const call of toolCalls) send({ tool_calls: [call] })
    send({}, finish)
    if (body?.stream_options?.include_usage !== false) event({ id, object: 'chat.completion.chunk', created: 0, model, choices: [], usage: fullUsage })
    event('[DONE]')
    res.end()
  }

  return {
    url: `${server.origin}/v1`,
    requests: server.requests,
    enqueue: (...turns) => void queue.push(...turns),
    respond: (fn) => void (fallback = fn),
    close: server.close,
  }
}
