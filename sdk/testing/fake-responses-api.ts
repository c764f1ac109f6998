// A scripted fake of the OpenAI responses API on 127.0.0.1 for tests: POST /responses (JSON, or
// server-sent events response.created … response.completed) answering ScriptedTurns (text,
// reasoning summaries, function calls, usage, delays, faults), and GET /models. Every request is
// recorded so tests can assert what the provider sent.

import type { ServerResponse } from 'node:http'
import { openEventStream, sendJson as json, sleep, startLoopbackServer, type RecordedRequest } from './loopback-server.ts'
import type { ScriptedTurn } from './scripted-model.ts'

export interface FakeResponsesApiOptions {
  turns?: ScriptedTurn[]
  models?: string[]
}

export interface FakeResponsesApi {
  /** Base URL (the client appends /responses). */
  readonly url: string
  readonly requests: RecordedRequest[]
  enqueue(...turns: ScriptedTurn[]): void
  close(): Promise<void>
}

function lastUserText(body: any): string {
  const input = Array.isArray(body?.input) ? body.input : [{ role: 'user', content: body?.input }]
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]
    if (item?.role !== 'user') continue
    if (typeof item.content === 'string') return item.content
    return (item.content ?? []).map((p: any) => p?.text ?? '').join('')
  }
  return ''
}

export async function startFakeResponsesApi(options: FakeResponsesApiOptions = {}): Promise<FakeResponsesApi> {
  const queue: ScriptedTurn[] = [...(options.turns ?? [])]
  const models = options.models ?? ['gpt-5-fake']
  let counter = 0

  const server = await startLoopbackServer({}, ({ method, path, body }, res) => {
    if (method === 'GET' && path.endsWith('/models')) return json(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) })
    if (method === 'POST' && path.endsWith('/responses')) return answer(res, body, queue.shift() ?? { text: `echo: ${lastUserText(body)}` }, ++counter)
    json(res, 404, { error: { message: `no route ${method} ${path}`, type: 'invalid_request_error' } })
  })

  async function answer(res: ServerResponse, body: any, turn: ScriptedTurn, n: number): Promise<void> {
    if (turn.delayMs) await sleep(turn.delayMs)
    if (turn.dropConnection) return void res.socket?.destroy()
    if (turn.status && turn.status >= 400) return json(res, turn.status, { error: { message: turn.error ?? 'scripted failure', type: turn.status >= 500 ? 'server_error' : 'invalid_request_error', code: null, param: null } })
    const u = turn.usage ?? { prompt_tokens: 10, completion_tokens: 5 }
    const usage = { input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens, total_tokens: u.prompt_tokens + u.completion_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: turn.reasoning ? 3 : 0 } }
    const output: any[] = []
    if (turn.reasoning) output.push({ type: 'reasoning', id: `rs_${n}`, summary: [{ type: 'summary_text', text: turn.reasoning }] })
    if (turn.text !== undefined || !turn.toolCalls?.length) output.push({ type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text ?? '', annotations: [] }] })
    for (const [i, call] of (turn.toolCalls ?? []).entries()) {
      output.push({ type: 'function_call', id: `fc_${n}_${i}`, call_id: call.id ?? `call_${n}_${i}`, name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments), status: 'completed' })
    }
    const response = (status: string, out: any[]) => ({ id: `resp_${n}`, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model: body?.model ?? models[0], output: out, usage: status === 'completed' ? usage : null })
    if (!body?.stream) return json(res, 200, response('completed', output))
    const event = openEventStream(res)
    let seq = 0
    const send = (type: string, data: Record<string, unknown>) => event({ type, sequence_number: seq++, ...data }, type)
    send('response.created', { response: response('in_progress', []) })
    const size = Math.max(1, turn.chunkSize ?? 8)
    for (const [index, item] of output.entries()) {
      if (res.destroyed) return
      if (item.type === 'reasoning') {
        send('response.output_item.added', { output_index: index, item: { ...item, summary: [] } })
        const t = item.summary[0].text as string
        for (let i = 0; i < t.length; i += size) send('response.reasoning_summary_text.delta', { item_id: item.id, output_index: index, summary_index: 0, delta: t.slice(i, i + size) })
      } else if (item.type === 'message') {
        send('response.output_item.added', { output_index: index, item: { ...item, content: [] } })
        const t = item.content[0].text as string
        for (let i = 0; i < t.length; i += size) {
          send('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: t.slice(i, i + size) })
          if (turn.chunkDelayMs) await sleep(turn.chunkDelayMs)
        }
      } else {
        send('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } })
        send('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: item.arguments })
      }
      send('response.output_item.done', { output_index: index, item })
    }
    send('response.completed', { response: response('completed', output) })
    res.end()
  }

  return {
    url: server.origin,
    requests: server.requests,
    enqueue: (...turns) => void queue.push(...turns),
    close: server.close,
  }
}
