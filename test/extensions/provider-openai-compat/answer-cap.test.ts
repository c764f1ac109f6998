// No model answer takes the process down: a buffered answer is capped (MAX_ANSWER_BYTES, counted
// decoded), so a gzip bomb, an endless chunked body or a declared length past the cap fails the call
// in one clear line, not retried, with memory bounded and the connection closed; a streamed answer's
// accumulated text is capped too, and so is one SSE event. Normal and large-but-under-cap answers
// (compressed, chunked, with a length) are read unchanged. Both transports: postJson (the hot path)
// and the fetch given to the openai client (streams).

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { AgentError, AnswerTooLargeError, MAX_ANSWER_BYTES, type ModelDelta, type ModelsService } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { createCompatClient } from '../../../extensions/provider-openai-compat/client.ts'
import { createNodeFetch, type NodeFetchOptions } from '../../../extensions/provider-openai-compat/node-fetch.ts'
import { StreamAccumulator } from '../../../extensions/provider-openai-compat/wire.ts'
import { chunkedBody, compressedBomb, sseStream, endpoint, GiB, gzipBomb, MiB, watchMemory, waitFor } from './hostile-endpoints.ts'

function transport(t: TestContext, options?: NodeFetchOptions) {
  const nf = createNodeFetch(options)
  t.after(() => nf.close())
  return nf
}

const completion = (content: string) => JSON.stringify({ id: 'c1', object: 'chat.completion', model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })
const body = Buffer.from('{"model":"m1","messages":[]}')
const tooLarge = (limit: number) => (error: unknown) => error instanceof AnswerTooLargeError && error.limit === limit && error.transient === false && /^the endpoint's answer is larger than /.test(error.message)

test('the default cap is 64 MiB', () => {
  assert.equal(MAX_ANSWER_BYTES, 64 * MiB)
})

test('postJson: a gzip bomb (1 GiB decoded) fails fast at the default cap, memory bounded; the next call works', async (t) => {
  const server = await endpoint(t, (req, _body, res) => {
    if (req.url === '/bomb') gzipBomb(res, GiB)
    else res.writeHead(200, { 'content-type': 'application/json' }).end(completion('fine'))
  })
  const nf = transport(t)
  const memory = watchMemory()
  const started = Date.now()
  await assert.rejects(nf.postJson(`${server.url}/bomb`, {}, body), (error: Error) => {
    assert.equal(error.message, "the endpoint's answer is larger than 64 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return tooLarge(MAX_ANSWER_BYTES)(error)
  })
  const grew = memory.stop()
  assert.ok(Date.now() - started < 15_000, `failed after ${Date.now() - started} ms`)
  assert.ok(grew < 400 * MiB, `resident memory grew by ${Math.round(grew / MiB)} MiB for a 1 GiB bomb`)
  // Reading stopped at the cap: the connection is closed (the whole bomb, about 1 MB on the wire,
  // may well have reached the socket; it is not decoded).
  await waitFor(() => server.closed() >= 1)
  assert.deepEqual(JSON.parse((await nf.postJson(`${server.url}/ok`, {}, body)).text).choices[0].message.content, 'fine')
})

test('postJson: deflate and brotli bombs, and an endless chunked body, are counted as they arrive', async (t) => {
  const feeds: Array<{ fed(): number }> = []
  const server = await endpoint(t, (req, _body, res) => {
    if (req.url === '/deflate') compressedBomb(res, 'deflate', 256 * MiB)
    else if (req.url === '/br') compressedBomb(res, 'br', 256 * MiB)
    else if (req.url === '/gzip') gzipBomb(res, 256 * MiB)
    else feeds.push(chunkedBody(res, 256 * MiB))
  })
  const nf = transport(t, { maxAnswerBytes: MiB })
  for (const path of ['/deflate', '/br', '/gzip', '/chunked']) {
    await assert.rejects(nf.postJson(`${server.url}${path}`, {}, body), (error: Error) => tooLarge(MiB)(error) && /larger than 1 MiB/.test(error.message), path)
  }
  // Reading stopped at the cap: the plain body was fed as far as the socket buffers go, not to its end.
  await waitFor(() => server.closed() >= 4)
  assert.ok(feeds[0]!.fed() < 64 * MiB, `the server fed ${Math.round(feeds[0]!.fed() / MiB)} MiB`)
  // The cap given to one call wins over the transport's.
  await assert.rejects(nf.postJson(`${server.url}/chunked`, {}, body, undefined, 64 * 1024), tooLarge(64 * 1024))
})

test('postJson: a declared length past the cap is refused without reading the body', async (t) => {
  const server = await endpoint(t, (_req, _body, res) => {
    // Headers only: a client that read the body would wait for it until its deadline.
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MiB + 1) })
    res.flushHeaders()
  })
  const nf = transport(t, { maxAnswerBytes: MiB })
  const started = Date.now()
  await assert.rejects(nf.postJson(`${server.url}/big`, {}, body), tooLarge(MiB))
  assert.ok(Date.now() - started < 5_000)
  const response = await nf.fetch(`${server.url}/big`, { method: 'POST', body: '{}' })
  assert.equal(response.status, 200)
  await assert.rejects(response.text(), tooLarge(MiB))
})

test('look-alikes: normal and large-but-under-cap answers, compressed or not, with a length or chunked, read unchanged', async (t) => {
  const cap = MiB
  const big = completion('x'.repeat(cap - 400))
  assert.ok(Buffer.byteLength(big) <= cap && Buffer.byteLength(big) > cap - 512)
  const server = await endpoint(t, (req, _body, res) => {
    const text = req.url!.startsWith('/big') ? big : completion('héllo')
    const json = { 'content-type': 'application/json' }
    if (req.url!.endsWith('/gzip')) res.writeHead(200, { ...json, 'content-encoding': 'gzip' }).end(gzipSync(text))
    else if (req.url!.endsWith('/deflate')) res.writeHead(200, { ...json, 'content-encoding': 'deflate' }).end(deflateSync(text))
    else if (req.url!.endsWith('/br')) res.writeHead(200, { ...json, 'content-encoding': 'br' }).end(brotliCompressSync(text))
    else if (req.url!.endsWith('/identity')) res.writeHead(200, { ...json, 'content-encoding': 'identity' }).end(text)
    else if (req.url!.endsWith('/chunked')) {
      res.writeHead(200, json)
      const bytes = Buffer.from(text)
      for (let i = 0; i < bytes.length; i += 10_000) res.write(bytes.subarray(i, i + 10_000))
      res.end()
    } else res.writeHead(200, { ...json, 'content-length': String(Buffer.byteLength(text)) }).end(text)
  })
  const nf = transport(t, { maxAnswerBytes: cap })
  for (const size of ['small', 'big']) {
    for (const kind of ['length', 'gzip', 'deflate', 'br', 'identity', 'chunked']) {
      const url = `${server.url}/${size}/${kind}`
      const expected = size === 'big' ? big : completion('héllo')
      assert.equal((await nf.postJson(url, {}, body)).text, expected, `postJson ${size} ${kind}`)
      assert.equal(await (await nf.fetch(url, { method: 'POST', body: '{}' })).text(), expected, `fetch ${size} ${kind}`)
    }
  }
})

test('fetch (the openai client\'s): a gzip bomb fails the body read, memory bounded; a per-client cap applies', async (t) => {
  const server = await endpoint(t, (req, _body, res) => {
    if (req.url === '/bomb') gzipBomb(res, GiB)
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
  })
  const nf = transport(t)
  const memory = watchMemory()
  const response = await nf.fetch(`${server.url}/bomb`, { method: 'POST', body: '{}' })
  await assert.rejects(response.json(), tooLarge(MAX_ANSWER_BYTES))
  const grew = memory.stop()
  assert.ok(grew < 400 * MiB, `resident memory grew by ${Math.round(grew / MiB)} MiB for a 1 GiB bomb`)
  await assert.rejects((await nf.fetchWithin(4096)(`${server.url}/bomb`, { method: 'POST', body: '{}' })).text(), tooLarge(4096))
  assert.deepEqual(await (await nf.fetch(`${server.url}/ok`)).json(), { ok: true })
})

test('fetch: one SSE event that never ends fails once past the cap; events of any number pass', async (t) => {
  const server = await endpoint(t, (req, _body, res) => {
    if (req.url === '/one-event') sseStream(res, (n) => (n === 0 ? 'data: {"x":"' : 'y'.repeat(64 * 1024)))
    else sseStream(res, (n) => (n < 2000 ? `data: {"n":${n},"pad":"${'z'.repeat(1000)}"}\r\n\r\n` : n === 2000 ? 'data: [DONE]\n\n' : undefined))
  })
  const nf = transport(t, { maxAnswerBytes: 256 * 1024 })
  const endless = await nf.fetch(`${server.url}/one-event`, { method: 'POST', body: '{}' })
  await assert.rejects(endless.text(), (error: Error) => error instanceof AnswerTooLargeError && /stream event is larger than 256 KiB/.test(error.message))
  await waitFor(() => server.closed() >= 1)
  // About 2 MB in all, 8 times the cap, in events of 1 KB: read whole.
  const many = await (await nf.fetch(`${server.url}/many`, { method: 'POST', body: '{}' })).text()
  assert.equal(many.split('\r\n\r\n').length, 2001)
})

async function compat(t: TestContext, baseUrl: string, extra: { maxAnswerBytes?: number; retries?: number } = {}) {
  const nf = transport(t)
  return createCompatClient({ provider: 'custom', model: 'm1', baseUrl, timeoutMs: 30_000, reasoning: 'none', retry: { retries: extra.retries ?? 0, baseDelayMs: 1 }, maxAnswerBytes: extra.maxAnswerBytes }, nf)
}

test('the compat client: a gzip bomb fails in one line, not retried; the client works afterwards', async (t) => {
  let bombs = 0
  const server = await endpoint(t, (_req, _body, res) => {
    if (bombs++ === 0) gzipBomb(res, GiB)
    else res.writeHead(200, { 'content-type': 'application/json' }).end(completion('after'))
  })
  const model = await compat(t, `${server.url}/v1`, { retries: 3 })
  await assert.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }] }), (error: Error) => {
    assert.ok(AgentError.isInstance(error))
    assert.equal((error as AgentError).code, 'E_PROVIDER')
    assert.equal(error.message, "custom: the endpoint's answer is larger than 64 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return true
  })
  assert.equal(server.requests(), 1, 'not retried')
  assert.equal((await model.complete({ messages: [{ role: 'user', content: 'x' }] })).content, 'after')
})

test('the compat client: an endless stream of 64 KB deltas fails once past the cap, and the stream is closed', async (t) => {
  const delta = 'd'.repeat(64 * 1024)
  const server = await endpoint(t, (req, _body, res) => {
    const wire = JSON.parse(_body)
    if (wire.messages[0].content === 'normal') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'hel' } }] })}\n\n`)
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] })}\n\n`)
      res.end('data: [DONE]\n\n')
      return
    }
    sseStream(res, () => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: delta } }] })}\n\n`)
  })
  const model = await compat(t, `${server.url}/v1`, { maxAnswerBytes: MiB, retries: 2 })
  let received = 0
  const onDelta = (d: ModelDelta) => void (received += d.content?.length ?? 0)
  await assert.rejects(model.complete({ messages: [{ role: 'user', content: 'endless' }] }, { onDelta }), (error: Error) => {
    assert.equal(error.message, "custom: the endpoint's streamed answer is larger than 1 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return true
  })
  assert.ok(received <= MiB && received > MiB - 128 * 1024, `${received} characters were delivered`)
  assert.equal(server.requests(), 1)
  await waitFor(() => server.closed() >= 1)
  const answer = await model.complete({ messages: [{ role: 'user', content: 'normal' }] }, { onDelta: () => {} })
  assert.equal(answer.content, 'hello')
})

test('AGENT_API_MAX_ANSWER_MB sets the cap of the clients the provider builds', async (t) => {
  const server = await endpoint(t, (_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(completion('x'.repeat(2 * MiB))))
  const resolve = async (env: Record<string, string>) => {
    const tk = await createTestKernel({ builtins: ['model-resolver', 'provider-openai-compat'], env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: `${server.url}/v1`, ...env }, config: { model: { default: 'm1' } } })
    t.after(() => tk.close())
    return tk.kernel.services.require<ModelsService>('models').resolve()
  }
  await assert.rejects((await resolve({ AGENT_API_MAX_ANSWER_MB: '1' })).complete({ messages: [{ role: 'user', content: 'x' }] }), /custom: the endpoint's answer is larger than 1 MiB; refused/)
  assert.equal((await (await resolve({})).complete({ messages: [{ role: 'user', content: 'x' }] })).content!.length, 2 * MiB)
  await assert.rejects(resolve({ AGENT_API_MAX_ANSWER_MB: 'lots' }), /AGENT_API_MAX_ANSWER_MB must be a positive number of MiB/)
})

test('StreamAccumulator: text, reasoning and tool calls count against one cap; an endless run of empty calls too', () => {
  const acc = new StreamAccumulator(undefined, 1000)
  acc.push({ choices: [{ delta: { content: 'a'.repeat(400) } }] })
  acc.push({ choices: [{ delta: { reasoning_content: 'r'.repeat(400) } }] })
  assert.throws(() => acc.push({ choices: [{ delta: { tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: 'x'.repeat(300) } }] } }] }), AnswerTooLargeError)
  const calls = new StreamAccumulator(undefined, 10_000)
  assert.throws(() => {
    for (let i = 0; i < 1_000_000; i++) calls.push({ choices: [{ delta: { tool_calls: [{ index: i }] } }] })
  }, AnswerTooLargeError)
  const fits = new StreamAccumulator(undefined, 1000)
  fits.push({ choices: [{ delta: { content: 'a'.repeat(1000) }, finish_reason: 'stop' }] })
  assert.equal(fits.result().content!.length, 1000, 'exactly the cap is kept')
})
