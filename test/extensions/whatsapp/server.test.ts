// The bridge's protocol server (bridge/server.mjs) on its own: loopback only; every request needs
// the exact bearer token (missing, wrong, same-length wrong and unprefixed tokens refused, the right
// one accepted); the receive queue long-polls and returns at once when a message is waiting; send,
// typing, edit and media reach their handlers; bad input is a 400 that calls nothing; a body over
// the limit is a 413.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { MessageQueue, startBridgeServer } from '../../../extensions/whatsapp/bridge/server.mjs'

const TOKEN = 'test-token-0123456789abcdef'

async function server(t: TestContext) {
  const calls: Array<[string, ...unknown[]]> = []
  const queue = new MessageQueue()
  const bridge = await startBridgeServer({
    token: TOKEN,
    queue,
    handlers: {
      health: () => ({ status: 'open' }),
      send: async (chatId, text) => (calls.push(['send', chatId, text]), { id: 'S1' }),
      typing: async (chatId, state) => void calls.push(['typing', chatId, state]),
      edit: async (chatId, id, text) => void calls.push(['edit', chatId, id, text]),
      media: async (chatId, media) => (calls.push(['media', chatId, media]), { id: 'M1' }),
    },
  })
  t.after(() => bridge.close())
  const call = async (path: string, body?: unknown, authorization: string | null = `Bearer ${TOKEN}`) => {
    const response = await fetch(`http://127.0.0.1:${bridge.port}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    return { status: response.status, body: await response.json().catch(() => undefined) }
  }
  return { bridge, queue, calls, call }
}

test('every request needs the exact token', async (t) => {
  const { call, calls } = await server(t)
  const wrongSameLength = TOKEN.slice(0, -1) + (TOKEN.endsWith('f') ? 'e' : 'f')
  for (const authorization of [null, `Bearer ${wrongSameLength}`, TOKEN, `Bearer ${TOKEN}x`, `bearer ${TOKEN}`]) {
    assert.equal((await call('/health', undefined, authorization)).status, 401, String(authorization))
    assert.equal((await call('/send', { chatId: 'x@s.whatsapp.net', text: 'hi' }, authorization)).status, 401)
  }
  assert.deepEqual(calls, [])
  assert.deepEqual(await call('/health'), { status: 200, body: { status: 'open', queued: 0 } })
})

test('a short or missing token refuses to start', async () => {
  await assert.rejects(startBridgeServer({ token: 'short', queue: new MessageQueue(), handlers: {} as never }), /at least 16 characters/)
})

test('the receive queue: waiting messages at once, otherwise a bounded long poll', async (t) => {
  const { call, queue } = await server(t)
  queue.push({ id: 'A' })
  queue.push({ id: 'B' })
  assert.deepEqual((await call('/messages?timeout_ms=5000')).body, { messages: [{ id: 'A' }, { id: 'B' }] })
  const started = Date.now()
  const later = call('/messages?timeout_ms=5000')
  setTimeout(() => queue.push({ id: 'C' }), 50)
  assert.deepEqual((await later).body, { messages: [{ id: 'C' }] })
  assert.ok(Date.now() - started < 5000)
  assert.deepEqual((await call('/messages?timeout_ms=0')).body, { messages: [] })
})

test('send, typing, edit and media reach their handlers; bad input calls nothing', async (t) => {
  const { call, calls } = await server(t)
  assert.deepEqual((await call('/send', { chatId: 'a@s.whatsapp.net', text: 'hi' })).body, { id: 'S1' })
  await call('/typing', { chatId: 'a@s.whatsapp.net', state: 'paused' })
  await call('/typing', { chatId: 'a@s.whatsapp.net', state: 'anything else' })
  await call('/edit', { chatId: 'a@s.whatsapp.net', id: 'S1', text: 'fixed' })
  assert.deepEqual((await call('/media', { chatId: 'a@s.whatsapp.net', path: '/tmp/x.png', mimetype: 'image/png' })).body, { id: 'M1' })
  assert.deepEqual(calls, [
    ['send', 'a@s.whatsapp.net', 'hi'],
    ['typing', 'a@s.whatsapp.net', 'paused'],
    ['typing', 'a@s.whatsapp.net', 'composing'],
    ['edit', 'a@s.whatsapp.net', 'S1', 'fixed'],
    ['media', 'a@s.whatsapp.net', { path: '/tmp/x.png', mimetype: 'image/png', caption: undefined, fileName: undefined }],
  ])
  calls.length = 0
  assert.deepEqual(await call('/send', { chatId: 'a@s.whatsapp.net' }), { status: 400, body: { error: 'text is required' } })
  assert.equal((await call('/send', 'not json')).status, 400)
  assert.equal((await call('/send', { chatId: 'a@s.whatsapp.net', text: 'x'.repeat(1024 * 1024 + 1) })).status, 413)
  assert.equal((await call('/unknown', {})).status, 404)
  assert.deepEqual(calls, [])
})
