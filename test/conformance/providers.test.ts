// The provider conformance suite: the same cases over every provider extension, each against a
// loopback fake of its own wire protocol — text, streaming, tool calls (single, parallel, missing
// ids), usage, reasoning, errors (4xx, 5xx retried, dropped connection, timeout, unreachable port)
// and abort. Failures must be one line, code E_PROVIDER (E_INTERRUPTED on abort), with no secret.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { AgentError, type ChatMessage, type ModelClient, type ModelDelta, type ModelsService } from 'agent/sdk'
import { createTestKernel, type TestKernel } from 'agent/sdk/testing'
import { HARNESSES, type Fake, type Harness } from './provider-harnesses.ts'

const FAST_RETRIES = { extensions: { 'model-resolver': { retries: 2, retry_base_delay_ms: 5, retry_max_delay_ms: 20 } } }
const user = (content: string): ChatMessage => ({ role: 'user', content })

async function kernelFor(harness: Harness, env: Record<string, string>, config?: Record<string, unknown>): Promise<TestKernel> {
  const extensions = { ...FAST_RETRIES.extensions, ...(config?.extensions as object | undefined) }
  return createTestKernel({ builtins: harness.builtins, env, config: { ...config, extensions } })
}

async function clientOf(kernel: TestKernel): Promise<ModelClient> {
  return kernel.kernel.services.require<ModelsService>('models').resolve()
}

async function failure(promise: Promise<unknown>): Promise<AgentError> {
  try {
    await promise
  } catch (error) {
    assert.ok(AgentError.isInstance(error), `expected an AgentError, got ${String(error)}`)
    assert.ok(!error.message.includes('\n'), `one line expected: ${error.message}`)
    assert.ok(!/\bat .+:\d+:\d+/.test(error.message), `no stack expected: ${error.message}`)
    return error
  }
  assert.fail('expected a failure')
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

for (const harness of HARNESSES) {
  describe(`provider conformance: ${harness.name}`, () => {
    let fake: Fake
    let env: Record<string, string>
    let config: Record<string, unknown> | undefined
    let kernel: TestKernel
    let client: ModelClient
    const calls = (from: number) => fake.requests.slice(from).filter(harness.isCall)

    before(async () => {
      ;({ fake, env, config } = await harness.start())
      kernel = await kernelFor(harness, env, config)
      client = await clientOf(kernel)
    })
    after(async () => {
      await kernel?.close()
      await fake?.close()
    })

    test('plain text answer, with the conversation on the wire', async () => {
      const mark = fake.requests.length
      fake.enqueue({ text: 'Hello from the fake.' })
      const res = await client.complete({ messages: [{ role: 'system', content: 'Be brief.' }, user('say hello')] })
      assert.equal(res.content, 'Hello from the fake.')
      assert.deepEqual(res.toolCalls, [])
      const sent = calls(mark)
      assert.equal(sent.length, 1)
      assert.equal(harness.wire.lastUserText(sent[0]!.body), 'say hello')
    })

    test('streaming: text arrives as several deltas that add up to the answer', async () => {
      const answer = 'The quick brown fox jumps over the lazy dog.'
      fake.enqueue({ text: answer, chunkSize: 5 })
      const deltas: ModelDelta[] = []
      const res = await client.complete({ messages: [user('stream please')] }, { onDelta: (d) => deltas.push(d) })
      const streamed = deltas.map((d) => d.content ?? '').join('')
      assert.equal(streamed, answer)
      assert.ok(deltas.filter((d) => d.content).length > 1, 'more than one text delta')
      assert.equal(res.content, answer)
    })

    test('a single tool call, then its result paired by id on the next request', async () => {
      const mark = fake.requests.length
      fake.enqueue({ toolCalls: [{ id: 'call_read_1', name: 'read_file', arguments: { path: 'notes.txt' } }] })
      const tools = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }]
      const first = await client.complete({ messages: [user('read notes.txt')], tools })
      assert.equal(first.toolCalls.length, 1)
      const call = first.toolCalls[0]!
      assert.equal(call.id, 'call_read_1')
      assert.equal(call.name, 'read_file')
      assert.deepEqual(JSON.parse(call.arguments), { path: 'notes.txt' })
      assert.deepEqual(harness.wire.toolNames(calls(mark)[0]!.body), ['read_file'])

      fake.enqueue({ text: 'The file says hi.' })
      const second = await client.complete({
        messages: [user('read notes.txt'), { role: 'assistant', content: null, toolCalls: first.toolCalls }, { role: 'tool', toolCallId: call.id, name: 'read_file', content: 'hi' }],
        tools,
      })
      assert.equal(second.content, 'The file says hi.')
      const body = calls(mark)[1]!.body
      assert.deepEqual(harness.wire.historyCallIds(body), ['call_read_1'])
      assert.deepEqual(harness.wire.toolResultIds(body), ['call_read_1'])
    })

    for (const streaming of [false, true]) {
      test(`parallel tool calls keep their ids and order (${streaming ? 'streamed' : 'not streamed'})`, async () => {
        fake.enqueue({
          toolCalls: [
            { id: 'call_a', name: 'read_file', arguments: { path: 'a.txt' } },
            { id: 'call_b', name: 'search_files', arguments: { pattern: 'TODO' } },
          ],
        })
        const res = await client.complete({ messages: [user('two things at once')] }, streaming ? { onDelta: () => {} } : {})
        assert.deepEqual(
          res.toolCalls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]),
          [
            ['call_a', 'read_file', { path: 'a.txt' }],
            ['call_b', 'search_files', { pattern: 'TODO' }],
          ],
        )
      })

      test(`tool calls without ids get distinct ids (${streaming ? 'streamed' : 'not streamed'})`, async () => {
        fake.enqueue({ toolCalls: [{ id: '', name: 'read_file', arguments: { path: 'a' } }, { id: '', name: 'read_file', arguments: { path: 'b' } }] })
        const res = await client.complete({ messages: [user('no ids')] }, streaming ? { onDelta: () => {} } : {})
        assert.equal(res.toolCalls.length, 2)
        const ids = res.toolCalls.map((c) => c.id)
        assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0), 'every call has an id')
        assert.notEqual(ids[0], ids[1])
        assert.deepEqual(res.toolCalls.map((c) => JSON.parse(c.arguments).path), ['a', 'b'])
      })
    }

    test('usage is mapped (streamed and not)', async () => {
      for (const streaming of [false, true]) {
        fake.enqueue({ text: 'counted', usage: { prompt_tokens: 123, completion_tokens: 45 } })
        const res = await client.complete({ messages: [user('count me')] }, streaming ? { onDelta: () => {} } : {})
        if (harness.exactUsage) assert.deepEqual([res.usage.inputTokens, res.usage.outputTokens, res.usage.totalTokens], [123, 45, 168])
        else assert.ok(res.usage.inputTokens > 0 && res.usage.outputTokens > 0 && res.usage.totalTokens === res.usage.inputTokens + res.usage.outputTokens)
      }
    })

    test('reasoning text is kept and streamed; the effort reaches the wire', async () => {
      if (!harness.reasoning) return
      const mark = fake.requests.length
      fake.enqueue({ reasoning: 'Think first: 2+2.', text: '4' })
      const res = await client.complete({ messages: [user('2+2?')], reasoningEffort: 'high' })
      assert.equal(res.content, '4')
      assert.equal(res.reasoning, 'Think first: 2+2.')
      if (harness.effort !== false) assert.ok(harness.wire.reasoningEffort(calls(mark)[0]!.body), 'reasoning effort sent')
      fake.enqueue({ reasoning: 'Streamed thought.', text: 'done' })
      const deltas: ModelDelta[] = []
      const streamed = await client.complete({ messages: [user('think')] }, { onDelta: (d) => deltas.push(d) })
      assert.equal(streamed.reasoning, 'Streamed thought.')
      assert.equal(deltas.map((d) => d.reasoning ?? '').join(''), 'Streamed thought.')
    })

    test('a 4xx answer fails at once in one line, secrets masked', async () => {
      if (!harness.http) return
      const mark = fake.requests.length
      const secret = Object.entries(env).find(([k]) => /KEY|TOKEN/.test(k))?.[1]
      fake.enqueue({ status: 400, error: `model not supported${secret ? ` for key ${secret}` : ''}` })
      const error = await failure(client.complete({ messages: [user('bad')] }))
      assert.equal(error.code, 'E_PROVIDER')
      assert.match(error.message, /HTTP 400/)
      assert.match(error.message, /model not supported/)
      if (secret) assert.ok(!error.message.includes(secret), 'the key is masked')
      assert.equal(calls(mark).length, 1, 'a 4xx is not retried')
    })

    test('a 5xx answer is retried, then succeeds', async () => {
      if (!harness.http) return
      const mark = fake.requests.length
      fake.enqueue({ status: 503, error: 'overloaded' }, { status: 500, error: 'oops' }, { text: 'recovered' })
      const res = await client.complete({ messages: [user('retry me')] })
      assert.equal(res.content, 'recovered')
      assert.equal(calls(mark).length, 3)
    })

    test('429 (rate limited) is retried', async () => {
      if (!harness.http) return
      const mark = fake.requests.length
      fake.enqueue({ status: 429, error: 'slow down' }, { text: 'after the wait' })
      assert.equal((await client.complete({ messages: [user('busy?')] })).content, 'after the wait')
      assert.equal(calls(mark).length, 2)
    })

    test('a 5xx answer that persists fails in one line after bounded retries', async () => {
      if (!harness.http) return
      const mark = fake.requests.length
      fake.enqueue({ status: 502, error: 'bad gateway' }, { status: 502, error: 'bad gateway' }, { status: 502, error: 'bad gateway' })
      const error = await failure(client.complete({ messages: [user('never')] }))
      assert.equal(error.code, 'E_PROVIDER')
      assert.match(error.message, /HTTP 502/)
      assert.match(error.message, /after 3 attempts/)
      assert.equal(calls(mark).length, 3)
    })

    test('a dropped connection is retried; if it keeps dropping, one line', async () => {
      if (!harness.http) return
      fake.enqueue({ dropConnection: true }, { text: 'second try' })
      assert.equal((await client.complete({ messages: [user('drop once')] })).content, 'second try')
      fake.enqueue({ dropConnection: true }, { dropConnection: true }, { dropConnection: true })
      const error = await failure(client.complete({ messages: [user('drop always')] }))
      assert.equal(error.code, 'E_PROVIDER')
      assert.match(error.message, /connection|socket|closed|reset/i)
    })

    test('abort interrupts a call in flight', async () => {
      fake.enqueue({ text: 'too late', delayMs: 3000 })
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 100)
      const error = await failure(client.complete({ messages: [user('slow')] }, { signal: controller.signal }))
      assert.equal(error.code, 'E_INTERRUPTED')
    })

    test('AGENT_API_TIMEOUT bounds a call that never answers', async () => {
      const timed = await kernelFor(harness, { ...env, AGENT_API_TIMEOUT: '0.3' }, config)
      after(() => timed.close())
      fake.enqueue({ text: 'never seen', delayMs: 5000 })
      const error = await failure((await clientOf(timed)).complete({ messages: [user('hang')] }))
      assert.equal(error.code, 'E_PROVIDER')
      assert.match(error.message, /no answer from .* within 0\.3 s \(AGENT_API_TIMEOUT\)/)
    })

    test('an unreachable endpoint fails in one line: cannot reach … connection refused', async () => {
      if (!harness.http || !harness.envFor) return
      const url = `http://127.0.0.1:${await freePort()}/v1`
      const dead = await kernelFor(harness, harness.envFor(url), config)
      after(() => dead.close())
      const error = await failure((await clientOf(dead)).complete({ messages: [user('anyone?')] }))
      assert.equal(error.code, 'E_PROVIDER')
      assert.match(error.message, /cannot reach http:\/\/127\.0\.0\.1:\d+.*: connection refused/)
    })
  })
}
