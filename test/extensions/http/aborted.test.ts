// A client that hangs up in the middle of its upload is no server error: it is logged at debug, not
// error (anyone could flood the error log with it). A handler that really fails still logs an error.

import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import { defineExtension, readJson, type EndpointDefinition, type HttpService } from '../../../sdk/index.ts'
import { createTestKernel } from '../../../sdk/testing/index.ts'

async function start(t: import('node:test').TestContext, endpoints: EndpointDefinition[]) {
  const lines: string[] = []
  const routes = defineExtension({ name: 'routes', setup: (api) => endpoints.forEach((e) => api.endpoints.register(e)) })
  const testKernel = await createTestKernel({ builtins: ['http'], extensions: [routes], env: { API_SERVER_PORT: '0' }, kernel: { logLevel: 'debug', logSink: { write: (line) => lines.push(line) } } })
  t.after(testKernel.close)
  await testKernel.kernel.start('gateway')
  return { port: testKernel.kernel.services.require<HttpService>('http').address('api')!.port, lines }
}

const waitFor = async (check: () => boolean, ms = 3_000) => {
  for (const started = Date.now(); !check() && Date.now() - started < ms; ) await new Promise((r) => setTimeout(r, 10))
  return check()
}

test('an upload the client aborts logs no error-level line (debug only)', async (t) => {
  let reached = 0
  const upload: EndpointDefinition = {
    listener: 'api',
    method: 'POST',
    path: '/upload',
    auth: 'none',
    async handler(ctx) {
      reached++
      ctx.body = { got: await readJson(ctx, 4096) }
    },
  }
  const { port, lines } = await start(t, [upload])
  for (let i = 0; i < 3; i++) {
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":')
        setTimeout(() => socket.destroy(), 50)
      })
      socket.on('close', () => resolve())
      socket.on('error', () => {})
    })
  }
  assert.ok(await waitFor(() => lines.filter((l) => /POST \/upload failed/.test(l)).length === 3), lines.join('\n'))
  assert.equal(reached, 3)
  assert.deepEqual(lines.filter((l) => /\] error:/.test(l)), [])
  assert.ok(lines.filter((l) => /POST \/upload failed/.test(l)).every((l) => /^\[http\] debug: /.test(l)), lines.join('\n'))
})

test('look-alike: a handler that fails on its own still logs at error level', async (t) => {
  const boom: EndpointDefinition = {
    listener: 'api',
    method: 'POST',
    path: '/boom',
    auth: 'none',
    async handler(ctx) {
      await readJson(ctx, 4096)
      // Shaped like an abort (an upstream reset), but the client is still here.
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
    },
  }
  const { port, lines } = await start(t, [boom])
  const res = await fetch(`http://127.0.0.1:${port}/boom`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } })
  assert.equal(res.status, 500)
  assert.ok(lines.some((l) => /^\[http\] error: POST \/boom failed: aborted/.test(l)), lines.join('\n'))
})
