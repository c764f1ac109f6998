// A failed call's line names the endpoint without the password of a `user:password@` base URL (any
// length), whether the endpoint is unreachable, answers an error or does not answer in time, for
// streamed and direct calls; the API key is masked; an ordinary error line is unchanged.

import assert from 'node:assert/strict'
import { createServer as createHttpServer } from 'node:http'
import { createServer, type AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { describeProviderError } from 'agent/sdk'
import { createCompatClient } from '../../../extensions/provider-openai-compat/client.ts'
import { createNodeFetch } from '../../../extensions/provider-openai-compat/node-fetch.ts'

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function client(t: TestContext, baseUrl: string, extra: { apiKey?: string; timeoutMs?: number } = {}) {
  const transport = createNodeFetch()
  t.after(() => transport.close())
  return createCompatClient({ provider: 'custom', model: 'm1', baseUrl, timeoutMs: extra.timeoutMs ?? 5_000, reasoning: 'none', retry: { retries: 0 }, ...(extra.apiKey ? { apiKey: extra.apiKey } : {}) }, transport)
}

const request = { messages: [{ role: 'user' as const, content: 'hi' }] }

test('an unreachable base URL with a password: the line names it without the password (direct and streamed)', async (t) => {
  const port = await closedPort()
  for (const password of ['url-pass-6b8d0f2a4c', 'pw1']) {
    const c = await client(t, `http://deploy:${password}@127.0.0.1:${port}/v1`)
    for (const options of [{}, { onDelta: () => undefined }]) {
      const error = await c.complete(request, options).then(() => undefined, (e: Error) => e)
      assert.ok(error, 'the call fails')
      assert.ok(!error.message.includes(password), error.message)
      assert.match(error.message, new RegExp(`^custom: .*http://deploy:\\*\\*\\*@127\\.0\\.0\\.1:${port}/v1`))
    }
  }
})

test('a base URL with a password that does not answer in time: the timeout line hides the password', async (t) => {
  const server = createHttpServer(() => undefined)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
  const port = (server.address() as AddressInfo).port
  const c = await client(t, `http://deploy:url-pass-6b8d0f2a4c@127.0.0.1:${port}/v1`, { timeoutMs: 200 })
  const error = await c.complete(request).then(() => undefined, (e: Error) => e)
  assert.match(error!.message, new RegExp(`^custom: no answer from http://deploy:\\*\\*\\*@127\\.0\\.0\\.1:${port}/v1 within`))
})

test('describeProviderError: URL passwords and the given secrets are masked; other text stays', () => {
  const status = Object.assign(new Error('bad key sk-live-abcdefgh12 for http://u:hunter2@db.example/x'), { status: 401 })
  assert.equal(
    describeProviderError(status, { provider: 'custom', baseUrl: 'https://me:p4ss@llm.example/v1', secrets: ['sk-live-abcdefgh12'] }),
    'custom: HTTP 401 from https://me:***@llm.example/v1: bad key *** for http://u:***@db.example/x',
  )
  const plain = Object.assign(new Error('model "m1" is overloaded, email admin@example.org'), { status: 503 })
  assert.equal(describeProviderError(plain, { provider: 'custom', baseUrl: 'https://llm.example/v1' }), 'custom: HTTP 503 from https://llm.example/v1: model "m1" is overloaded, email admin@example.org')
})
