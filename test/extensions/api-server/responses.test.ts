// /v1/responses through the official openai client: create, chaining by previous_response_id and by
// conversation name (one session per chain, instructions inherited), retrieve, delete then 404,
// streaming events the client's accumulator accepts, store=false, and the store surviving a restart
// with least-recently-used eviction past its capacity.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import OpenAI from 'openai'
import { defineExtension } from '../../../sdk/index.ts'
import { backendSkip, makeTempHome, STORAGE_BACKENDS, testStorage } from '../../../sdk/testing/index.ts'
import { rmSync } from 'node:fs'
import { gateTool, post, startServer, until } from './harness.ts'

function conversationOf(body: any): string[] {
  return body.messages.filter((m: any) => m.role === 'user' || m.role === 'assistant').map((m: any) => `${m.role}:${m.content}`)
}
function systemOf(body: any): string {
  return body.messages.filter((m: any) => m.role === 'system').map((m: any) => m.content).join('\n')
}

for (const backend of STORAGE_BACKENDS) {
  describe(`responses [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('responses.create, chaining by previous_response_id (instructions inherited, one session), retrieve, delete, then 404', async (t) => {
      const server = await startServer(t, { storage: backend })
      const client = server.client()
      server.model.enqueue({ text: 'Nice to meet you, Ada.', usage: { prompt_tokens: 12, completion_tokens: 6 } })
      const first = await client.responses.create({ model: 'agent', input: 'My name is Ada.', instructions: 'Speak formally.' })
      assert.match(first.id, /^resp_[0-9a-f]{28}$/)
      assert.equal(first.status, 'completed')
      assert.equal(first.output_text, 'Nice to meet you, Ada.')
      assert.deepEqual([first.usage?.input_tokens, first.usage?.output_tokens, first.usage?.total_tokens], [12, 6, 18])
      assert.ok(systemOf(server.model.requests.at(-1)!.body).indexOf('Speak formally.') > 0)

      const second = await client.responses.create({ model: 'agent', input: 'What is my name?', previous_response_id: first.id }).withResponse()
      assert.equal(second.data.previous_response_id, first.id)
      assert.equal(second.data.instructions, 'Speak formally.')
      const sent = server.model.requests.at(-1)!.body
      assert.deepEqual(conversationOf(sent), ['user:My name is Ada.', 'assistant:Nice to meet you, Ada.', 'user:What is my name?'])
      assert.ok(systemOf(sent).includes('Speak formally.'), 'instructions are inherited along the chain')
      const third = await client.responses.create({ model: 'agent', input: 'Again?', previous_response_id: second.data.id }).withResponse()
      assert.equal(third.response.headers.get('x-agent-session-id'), second.response.headers.get('x-agent-session-id'))

      const fetched = await client.responses.retrieve(first.id)
      assert.equal(fetched.id, first.id)
      assert.equal(fetched.output_text, 'Nice to meet you, Ada.')
      await client.responses.delete(first.id)
      await assert.rejects(client.responses.retrieve(first.id), (e: unknown) => e instanceof OpenAI.NotFoundError)
      await assert.rejects(client.responses.delete(first.id), (e: unknown) => e instanceof OpenAI.NotFoundError)
      // The later responses of the chain still stand on their own.
      assert.equal((await client.responses.retrieve(second.data.id)).id, second.data.id)
      await assert.rejects(client.responses.create({ model: 'agent', input: 'x', previous_response_id: 'resp_unknown' }), (e: unknown) => e instanceof OpenAI.NotFoundError)
    })

    test('a conversation name chains its responses; an unknown name starts a chain; name and previous id together is 400', async (t) => {
      const server = await startServer(t, { storage: backend })
      const client = server.client()
      const a1 = await client.responses.create({ model: 'agent', input: 'Plan a trip', conversation: 'trip' } as any).withResponse()
      assert.equal(a1.data.previous_response_id, null)
      assert.deepEqual(conversationOf(server.model.requests.at(-1)!.body), ['user:Plan a trip'])
      const a2 = await client.responses.create({ model: 'agent', input: 'By train', conversation: 'trip' } as any).withResponse()
      assert.equal(a2.data.previous_response_id, a1.data.id)
      assert.deepEqual(conversationOf(server.model.requests.at(-1)!.body), ['user:Plan a trip', 'assistant:echo: Plan a trip', 'user:By train'])
      assert.equal(a2.response.headers.get('x-agent-session-id'), a1.response.headers.get('x-agent-session-id'))
      const b1 = await client.responses.create({ model: 'agent', input: 'Something else', conversation: 'other' } as any).withResponse()
      assert.equal(b1.data.previous_response_id, null)
      assert.notEqual(b1.response.headers.get('x-agent-session-id'), a1.response.headers.get('x-agent-session-id'))
      await assert.rejects(
        client.responses.create({ model: 'agent', input: 'x', conversation: 'trip', previous_response_id: a2.data.id } as any),
        (e: unknown) => e instanceof OpenAI.BadRequestError && /not both/.test((e as Error).message),
      )
      // The official client's object form names the same chain.
      const a3 = await client.responses.create({ model: 'agent', input: 'Third', conversation: { id: 'trip' } } as any)
      assert.equal(a3.previous_response_id, a2.data.id)
    })

    test('one request at a time runs a conversation: the second is 409 while the first runs, then it continues', async (t) => {
      const g = gateTool()
      const server = await startServer(t, { storage: backend, extensions: [g.extension] })
      const url = `${server.url}/v1/responses`
      server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] })
      const first = post(url, { input: 'one', conversation: 'busy' })
      await until(() => g.state.started === 1, 'the first run to reach its tool')
      const second = await post(url, { input: 'two', conversation: 'busy' })
      assert.equal(second.status, 409)
      assert.equal(second.body.error.code, 'conversation_in_progress')
      assert.equal(second.body.error.param, 'conversation')
      assert.equal(second.headers.get('retry-after'), '1')
      // Another conversation, and a response chained by id, are not held up.
      assert.equal((await post(url, { input: 'elsewhere', conversation: 'idle' })).status, 200)
      server.model.enqueue({ text: 'first answer' })
      g.state.release()
      const answered = await first
      assert.equal(answered.status, 200)
      assert.equal(answered.body.output.at(-1).content[0].text, 'first answer')
      // Released with the answer: the retry continues after the first turn.
      const retried = await post(url, { input: 'two', conversation: 'busy' })
      assert.equal(retried.status, 200)
      assert.equal(retried.body.previous_response_id, answered.body.id)
      assert.deepEqual(conversationOf(server.model.requests.at(-1)!.body), ['user:one', 'assistant:null', 'assistant:first answer', 'user:two'], 'the first turn (its tool call included), then the retried one')
    })

    test('streamed responses: the official stream helper accumulates the events into the final response', async (t) => {
      const tools = defineExtension({
        name: 'test-tools',
        setup(api) {
          api.tools.register({ name: 'count_words', description: 'Counts words', parameters: { type: 'object' }, execute: ({ input }) => String(String(input.text).split(' ').length) })
        },
      })
      const server = await startServer(t, { storage: backend, extensions: [tools] })
      server.model.enqueue({ text: 'Let me count.', toolCalls: [{ id: 'call_c1', name: 'count_words', arguments: { text: 'a b c' } }] }, { text: 'There are three words.', chunkSize: 4 })
      const stream = server.client().responses.stream({ model: 'agent', input: 'Count: a b c' })
      const types: string[] = []
      const sequence: number[] = []
      stream.on('event', (event) => {
        types.push(event.type)
        sequence.push(event.sequence_number)
      })
      const final = await stream.finalResponse()
      assert.equal(final.status, 'completed')
      assert.equal(types[0], 'response.created')
      assert.equal(types.at(-1), 'response.completed')
      assert.deepEqual(sequence, sequence.map((_, i) => i), 'sequence numbers rise by one from 0')
      assert.ok(types.includes('response.output_text.delta'))
      // The agent ran count_words itself: no function_call item a client would try to run.
      assert.ok(!types.includes('response.function_call_arguments.done'))
      assert.deepEqual(final.output.map((o) => o.type), ['message', 'message'])
      assert.equal((final.output[0] as any).content[0].text, 'Let me count.')
      assert.equal((final.output[1] as any).content[0].text, 'There are three words.')
      assert.ok(final.usage && final.usage.total_tokens > 0)
      // What was streamed is what is stored.
      const stored = await server.client().responses.retrieve(final.id)
      const shape = (output: any[]) => output.map((o) => ({ id: o.id, type: o.type, status: o.status, text: o.content?.[0]?.text, args: o.arguments }))
      assert.deepEqual(shape(stored.output), shape(final.output))
    })

    test('store=false answers without storing; GET of it is 404', async (t) => {
      const server = await startServer(t, { storage: backend })
      const client = server.client()
      const response = await client.responses.create({ model: 'agent', input: 'ephemeral', store: false })
      assert.equal(response.output_text, 'echo: ephemeral')
      await assert.rejects(client.responses.retrieve(response.id), (e: unknown) => e instanceof OpenAI.NotFoundError)
      const chained = await post(`${server.url}/v1/responses`, { input: 'next', previous_response_id: response.id })
      assert.equal(chained.status, 404)
    })

    test('stored responses survive a restart; past the capacity the least recently used is evicted', async (t) => {
      const home = makeTempHome()
      const storage = await testStorage(t, backend)
      t.after(() => rmSync(home, { recursive: true, force: true }))
      const config = { platforms: { api_server: { extra: { response_store_capacity: 3 } } } }
      const first = await startServer(t, { storage, home, config })
      const client = first.client()
      const ids: string[] = []
      for (const word of ['one', 'two', 'three']) ids.push((await client.responses.create({ model: 'agent', input: word, conversation: `c-${word}` } as any)).id)
      // Reading "one" makes "two" the least recently used.
      await client.responses.retrieve(ids[0]!)
      await first.stop()

      const second = await startServer(t, { storage, home, config, modelServer: first.model })
      const again = second.client()
      assert.equal((await again.responses.retrieve(ids[2]!)).output_text, 'echo: three')
      const four = await again.responses.create({ model: 'agent', input: 'four' })
      await assert.rejects(again.responses.retrieve(ids[1]!), (e: unknown) => e instanceof OpenAI.NotFoundError)
      for (const id of [ids[0]!, ids[2]!, four.id]) assert.equal((await again.responses.retrieve(id)).id, id)
      // The evicted response's conversation name is a 404 naming it, not a silent new chain.
      await assert.rejects(again.responses.create({ model: 'agent', input: 'fresh', conversation: 'c-two' } as any), (e: any) => e instanceof OpenAI.NotFoundError && /c-two/.test(e.message) && e.code === 'conversation_not_found')
      // A name never used starts a chain.
      assert.equal((await again.responses.create({ model: 'agent', input: 'fresh', conversation: 'c-new' } as any)).previous_response_id, null)
      // A surviving name still continues its chain after the restart.
      const continued = await again.responses.create({ model: 'agent', input: 'more', conversation: 'c-three' } as any)
      assert.equal(continued.previous_response_id, ids[2])
    })

    test('a streamed response whose client disconnects is interrupted and stored as cancelled', async (t) => {
      let aborted = false
      const tools = defineExtension({
        name: 'test-wait',
        setup(api) {
          api.tools.register({
            name: 'wait_forever',
            description: 'Waits until interrupted',
            parameters: { type: 'object' },
            execute: ({ signal }) =>
              new Promise((resolve) => {
                const timer = setTimeout(() => resolve('timed out'), 10_000)
                signal.addEventListener('abort', () => ((aborted = true), clearTimeout(timer), resolve('interrupted')), { once: true })
              }),
          })
        },
      })
      const server = await startServer(t, { storage: backend, extensions: [tools] })
      server.model.enqueue({ text: 'Working on it.', toolCalls: [{ name: 'wait_forever', arguments: {} }] })
      const controller = new AbortController()
      const res = await fetch(`${server.url}/v1/responses`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'take your time', stream: true }) })
      const reader = res.body!.getReader()
      let seen = ''
      while (!seen.includes('response.output_text.done')) seen += Buffer.from((await reader.read()).value!).toString()
      const id = /"id":"(resp_[0-9a-f]+)"/.exec(seen)![1]!
      controller.abort()
      for (let i = 0; i < 250 && !aborted; i++) await new Promise((r) => setTimeout(r, 20))
      assert.ok(aborted, 'the run was interrupted')
      let stored: any
      for (let i = 0; i < 250; i++) {
        stored = await fetch(`${server.url}/v1/responses/${id}`).then((r) => (r.status === 200 ? r.json() : undefined))
        if (stored) break
        await new Promise((r) => setTimeout(r, 20))
      }
      assert.equal(stored?.status, 'cancelled')
      assert.equal(stored.incomplete_details, null)
      assert.equal(stored.output[0].content[0].text, 'Working on it.')
      // It can still be chained from.
      const next = await server.client().responses.create({ model: 'agent', input: 'go on', previous_response_id: id })
      assert.equal(next.status, 'completed')
    })
  })
}
