// /v1/models and /v1/chat/completions through the official openai client: plain and streamed answers
// with usage, the frontend's system text layered after the agent's own prompt, tool progress events
// that do not confuse the client, and a resent conversation staying in one agent session.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineExtension } from '../../../sdk/index.ts'
import { post, startServer } from './harness.ts'

const progressTool = defineExtension({
  name: 'test-tools',
  setup(api) {
    api.tools.register({
      name: 'lookup_weather',
      description: 'Looks up the weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
      execute({ input, session }) {
        session.progress?.(`asking about ${input.city}`)
        return `sunny in ${input.city}`
      },
    })
  },
})

function systemOf(body: any): string {
  return body.messages.filter((m: any) => m.role === 'system').map((m: any) => m.content).join('\n')
}

test('models.list names the agent as its one model (API_SERVER_MODEL_NAME renames it)', async (t) => {
  const plain = await startServer(t)
  const list = await plain.client().models.list()
  assert.deepEqual(list.data.map((m) => m.id), ['agent'])
  assert.equal(list.data[0]!.object, 'model')
  const named = await startServer(t, { env: { API_SERVER_MODEL_NAME: 'my-helper' } })
  assert.deepEqual((await named.client().models.list()).data.map((m) => m.id), ['my-helper'])
})

test('chat completion: the answer with real usage; system messages layered after the agent prompt; history kept', async (t) => {
  const server = await startServer(t)
  server.model.enqueue({ text: 'Paris it is.', usage: { prompt_tokens: 42, completion_tokens: 7 } })
  const completion = await server.client().chat.completions.create({
    model: 'agent',
    messages: [
      { role: 'system', content: 'Answer like a pirate.' },
      { role: 'user', content: 'Where should I go?' },
      { role: 'assistant', content: 'Somewhere sunny.' },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Pick a city.' },
    ],
  })
  assert.equal(completion.object, 'chat.completion')
  assert.equal(completion.choices[0]!.message.content, 'Paris it is.')
  assert.equal(completion.choices[0]!.finish_reason, 'stop')
  assert.deepEqual(completion.usage && { p: completion.usage.prompt_tokens, c: completion.usage.completion_tokens, t: completion.usage.total_tokens }, { p: 42, c: 7, t: 49 })

  const sent = server.model.requests.at(-1)!.body
  const system = systemOf(sent)
  // Both frontend system messages, joined, come after the agent's own prompt (which is non-empty).
  const layered = system.indexOf('Answer like a pirate.\nBe brief.')
  assert.ok(layered > 0, `frontend system text should follow the agent prompt: ${JSON.stringify(system)}`)
  const convo = sent.messages.filter((m: any) => m.role === 'user' || m.role === 'assistant').map((m: any) => `${m.role}:${m.content}`)
  assert.deepEqual(convo, ['user:Where should I go?', 'assistant:Somewhere sunny.', 'user:Pick a city.'])
})

test('streamed chat completion: deltas, tool progress, a final chunk with usage, then [DONE]', async (t) => {
  const server = await startServer(t, { extensions: [progressTool] })
  server.model.enqueue(
    { toolCalls: [{ id: 'call_w1', name: 'lookup_weather', arguments: { city: 'Oslo' } }], usage: { prompt_tokens: 20, completion_tokens: 3 } },
    { text: 'It is sunny in Oslo today.', chunkSize: 5, usage: { prompt_tokens: 30, completion_tokens: 6 } },
  )
  const stream = await server.client().chat.completions.create({ model: 'agent', stream: true, messages: [{ role: 'user', content: 'Weather in Oslo?' }] })
  let text = ''
  let usage: any
  let finish: string | null | undefined
  const progress: any[] = []
  for await (const chunk of stream) {
    // The way most client code reads chunks: progress events must not break it.
    text += chunk.choices[0]?.delta?.content ?? ''
    if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason
    if (chunk.usage) usage = chunk.usage
    if ((chunk as any).tool_progress) progress.push((chunk as any).tool_progress)
  }
  assert.equal(text, 'It is sunny in Oslo today.')
  assert.equal(finish, 'stop')
  assert.ok(usage && usage.prompt_tokens >= 30 && usage.completion_tokens >= 6 && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens, JSON.stringify(usage))
  const statuses = progress.filter((p) => p.tool === 'lookup_weather').map((p) => p.status)
  assert.deepEqual(statuses.filter((s) => s !== 'progress'), ['running', 'completed'])
  assert.ok(progress.some((p) => p.status === 'progress' && p.text === 'asking about Oslo'), JSON.stringify(progress))
})

test('the raw SSE stream: role chunk first, named progress events, usage on the last chunk, [DONE] last', async (t) => {
  const server = await startServer(t, { extensions: [progressTool] })
  server.model.enqueue({ toolCalls: [{ id: 'call_w2', name: 'lookup_weather', arguments: { city: 'Rome' } }] }, { text: 'Warm.' })
  const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'Rome?' }] }) })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
  const raw = await res.text()
  const events = raw.split('\n\n').filter(Boolean)
  assert.equal(events.at(-1), 'data: [DONE]')
  const first = JSON.parse(events[0]!.replace(/^data: /, ''))
  assert.deepEqual(first.choices[0].delta, { role: 'assistant', content: '' })
  assert.ok(events.some((e) => e.startsWith('event: agent.tool.progress\ndata: ')), raw)
  const last = JSON.parse(events.at(-2)!.replace(/^data: /, ''))
  assert.equal(last.choices[0].finish_reason, 'stop')
  assert.ok(last.usage.total_tokens > 0)
})

test('a frontend resending its whole conversation stays in one agent session; another conversation gets its own', async (t) => {
  const server = await startServer(t)
  const url = `${server.url}/v1/chat/completions`
  const first = await post(url, { messages: [{ role: 'system', content: 'Today is Monday.' }, { role: 'user', content: 'Hello there' }] })
  assert.equal(first.status, 200)
  const session = first.headers.get('x-agent-session-id')
  assert.ok(session)
  const answer = first.body.choices[0].message.content
  // Frontends template the date into the system prompt; the session must survive that.
  const second = await post(url, {
    messages: [{ role: 'system', content: 'Today is Tuesday.' }, { role: 'user', content: 'Hello there' }, { role: 'assistant', content: `  ${answer}\n` }, { role: 'user', content: 'And again' }],
  })
  assert.equal(second.status, 200)
  assert.equal(second.headers.get('x-agent-session-id'), session)
  const third = await post(url, {
    messages: [{ role: 'user', content: 'Hello there' }, { role: 'assistant', content: answer }, { role: 'user', content: 'And again' }, { role: 'assistant', content: second.body.choices[0].message.content }, { role: 'user', content: 'Third' }],
  })
  assert.equal(third.headers.get('x-agent-session-id'), session)
  const other = await post(url, { messages: [{ role: 'user', content: 'A different talk' }] })
  assert.notEqual(other.headers.get('x-agent-session-id'), session)
})
