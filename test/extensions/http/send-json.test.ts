// sendJson: a JSON answer that goes out at once, before the handler's own epilogue, exactly as Koa
// would have sent it; held by a layer that keeps answers (idempotent replay), it is left to Koa and
// goes out after that layer; a client gone meanwhile costs nothing.

import assert from 'node:assert/strict'
import { request } from 'node:http'
import { test } from 'node:test'
import { defineExtension, holdAnswer, sendJson, type EndpointDefinition, type HttpContext, type HttpService } from '../../../sdk/index.ts'
import { createTestKernel } from '../../../sdk/testing/index.ts'
import { send } from './raw-request.ts'

const ANSWER = { id: 'x-1', object: 'thing', items: [1, 2, 3], note: 'é' }

async function start(t: import('node:test').TestContext, handlers: Record<string, (ctx: HttpContext) => unknown>) {
  const routes = defineExtension({
    name: 'routes',
    setup: (api) => Object.entries(handlers).forEach(([name, handler]) => api.endpoints.register({ listener: 'api', method: 'POST', path: `/${name}`, auth: 'api-key', handler: handler as EndpointDefinition['handler'] })),
  })
  const host = await createTestKernel({ builtins: ['http'], extensions: [routes], env: { API_SERVER_PORT: '0', API_SERVER_CORS_ORIGINS: 'https://app.example' } })
  t.after(host.close)
  await host.kernel.start('gateway')
  return host.kernel.services.require<HttpService>('http').address('api')!.url
}

/** A promise with its resolver, bounded so that a test that waits on it fails instead of hanging. */
function gate(what: string): { opened: Promise<void>; open: () => void } {
  let open!: () => void
  const opened = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} never came`)), 5_000)
    open = () => {
      clearTimeout(timer)
      resolve()
    }
  })
  return { opened, open }
}

test('the answer is what Koa sends for the same body: status, headers, CORS and all', async (t) => {
  const url = await start(t, {
    assigned: (ctx) => void (ctx.body = ANSWER),
    sent: (ctx) => sendJson(ctx, ANSWER),
    created: (ctx) => sendJson(ctx, ANSWER, 201),
  })
  for (const headers of [{}, { origin: 'https://app.example' }] as Array<Record<string, string>>) {
    const viaKoa = await send(url, '/assigned', 'POST', headers)
    const sent = await send(url, '/sent', 'POST', headers)
    assert.deepEqual(sent, viaKoa)
    assert.deepEqual(JSON.parse(sent.body), ANSWER)
  }
  assert.equal((await send(url, '/created', 'POST')).status, 201)
})

test('it goes out before the handler returns; held, only once the handler and its layers are done', async (t) => {
  const early = gate('the early answer')
  const late = gate('the end of the held handler')
  let heldHandlerDone = false
  const url = await start(t, {
    early: async (ctx) => {
      sendJson(ctx, ANSWER)
      // The client has the answer while this handler is still running.
      await early.opened
    },
    held: async (ctx) => {
      holdAnswer(ctx)
      sendJson(ctx, ANSWER)
      await late.opened
      heldHandlerDone = true
    },
  })
  const answer = await send(url, '/early', 'POST')
  early.open()
  assert.deepEqual(JSON.parse(answer.body), ANSWER)

  const held = send(url, '/held', 'POST')
  await new Promise((resolve) => setTimeout(resolve, 50))
  late.open()
  const heldAnswer = await held
  assert.equal(heldHandlerDone, true, 'the held answer left after its handler finished')
  assert.deepEqual(JSON.parse(heldAnswer.body), ANSWER)
})

test('a client gone before the answer costs nothing: the server goes on answering', async (t) => {
  const gone = gate('the client leaving')
  let sentToNobody: unknown = 'not called'
  const url = await start(t, {
    slow: async (ctx) => {
      ctx.req.once('close', gone.open)
      await gone.opened
      try {
        sendJson(ctx, ANSWER)
        sentToNobody = undefined
      } catch (error) {
        sentToNobody = error
      }
    },
    sent: (ctx) => sendJson(ctx, ANSWER),
  })
  const req = request(`${url}/slow`, { method: 'POST', agent: false })
  req.on('error', () => undefined)
  req.end()
  await new Promise((resolve) => setTimeout(resolve, 50))
  req.destroy()
  await gone.opened
  await new Promise((resolve) => setTimeout(resolve, 20))
  assert.equal(sentToNobody, undefined, 'sendJson did not throw')
  assert.equal((await send(url, '/sent', 'POST')).status, 200)
})
