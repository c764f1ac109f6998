// `Idempotency-Key` keeps no known secret (settings' secrets, here DEPLOY_TOKEN from the
// environment), on both backends: the stored answer (JSON, or a whole SSE stream) has the secret
// replaced by its marker, and the stored request hash is not one of text holding the secret. The
// feature still works for such a request (the same body replays, another body is refused), and a
// request without a secret (a look-alike of it) is stored and replayed byte for byte as before.

import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { backendSkip, STORAGE_BACKENDS } from '../../../sdk/testing/index.ts'
import type { DatabaseService, StorageService } from '../../../sdk/index.ts'
import { redactAnswer } from '../../../extensions/api-server/idempotency.ts'
import { startServer, until, type RunningServer } from './harness.ts'

const SECRET = 'dpl-7f3k9QxW2mZ8rT5vLq'
const MARKER = '[REDACTED:DEPLOY_TOKEN]'
/** The secret with its last character changed: no secret at all. */
const LOOKALIKE = 'dpl-7f3k9QxW2mZ8rT5vLr'

interface Row {
  key: string
  request_hash: string
  status: number
  body: string
}

async function rows(server: RunningServer): Promise<Row[]> {
  const services = server.test.kernel.services
  const sql = 'SELECT key, request_hash, status, body FROM api_server_idempotency ORDER BY key'
  if (services.require<StorageService>('storage').backend === 'postgres') return services.require<StorageService>('storage').postgres().query<Row>(sql)
  return services.require<DatabaseService>('database').db().prepare(sql).all() as Row[]
}

/** The stored answer under `key`, once written (SQLite writes it behind the answer). */
async function stored(server: RunningServer, key: string): Promise<Row> {
  let row: Row | undefined
  await until(async () => (row = (await rows(server)).find((r) => r.key === key && r.status !== 0)) !== undefined, `the answer under ${key} stored`)
  return row!
}

/** POST with a raw JSON body; the answer's text as received, byte for byte. */
async function raw(url: string, body: string, key: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

test('redactAnswer: an answer without a secret is the very same object; one with it gets the marker, valid JSON kept', () => {
  const redact = (text: string) => text.replaceAll(SECRET, MARKER).replaceAll(JSON.stringify(SECRET).slice(1, -1), MARKER)
  const plain = { status: 200, contentType: 'application/json; charset=utf-8', sessionId: 's1', body: JSON.stringify({ instructions: `token ${LOOKALIKE}` }) }
  assert.equal(redactAnswer(plain, redact), plain)
  const secret = { ...plain, body: JSON.stringify({ instructions: `token ${SECRET}` }) }
  const kept = redactAnswer(secret, redact)
  assert.deepEqual(JSON.parse(kept.body), { instructions: `token ${MARKER}` })
  assert.deepEqual({ ...kept, body: '' }, { ...secret, body: '' }, 'status, type and session unchanged')
})

for (const backend of STORAGE_BACKENDS) {
  describe(`Idempotency-Key stores no known secret [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('a JSON answer echoing a secret: stored redacted, request hash not of the secret; replayed (with the marker), another body refused', async (t) => {
      const server = await startServer(t, { storage: backend, env: { DEPLOY_TOKEN: SECRET } })
      const url = `${server.url}/v1/responses`
      const body = JSON.stringify({ input: 'hi', instructions: `token ${SECRET}` })
      const first = await raw(url, body, 'k1')
      assert.equal(first.status, 200, first.text)
      // The client gets back what it sent (its own instructions); the model never read the secret.
      assert.equal(JSON.parse(first.text).instructions, `token ${SECRET}`)
      assert.ok(!JSON.stringify(server.model.requests.map((r) => r.body)).includes(SECRET), 'the model read no secret')

      const row = await stored(server, 'k1')
      assert.ok(!row.body.includes(SECRET), row.body)
      assert.ok(row.body.includes(MARKER), row.body)
      assert.notEqual(row.request_hash, sha256(body), 'no hash of the text holding the secret')
      assert.equal(row.request_hash, sha256(body.replace(SECRET, MARKER)))
      for (const r of await rows(server)) assert.ok(!JSON.stringify(r).includes(SECRET), JSON.stringify(r))

      const calls = server.model.requests.length
      const again = await raw(url, body, 'k1')
      assert.equal(again.status, 200)
      assert.equal(again.headers.get('idempotent-replayed'), 'true')
      assert.equal(again.headers.get('x-agent-session-id'), first.headers.get('x-agent-session-id'))
      assert.equal(again.text, first.text.replace(SECRET, MARKER), 'the same answer, the secret shown as its marker')
      assert.equal(server.model.requests.length, calls, 'no second run')

      // The same key with another body (the look-alike instead of the secret): refused, nothing run.
      const other = await raw(url, JSON.stringify({ input: 'hi', instructions: `token ${LOOKALIKE}` }), 'k1')
      assert.equal(other.status, 422, other.text)
      assert.equal(JSON.parse(other.text).error.code, 'idempotency_key_reused')
      assert.equal(server.model.requests.length, calls)
    })

    test('a streamed answer echoing a secret: the recorded stream is stored redacted and replayed whole', async (t) => {
      const server = await startServer(t, { storage: backend, env: { DEPLOY_TOKEN: SECRET } })
      const url = `${server.url}/v1/responses`
      const body = JSON.stringify({ input: 'stream it', instructions: `token ${SECRET}`, stream: true })
      const first = await raw(url, body, 'k-stream')
      assert.match(first.text, /event: response.completed/)
      assert.ok(first.text.includes(SECRET), 'the stream echoes the instructions the client sent')
      const row = await stored(server, 'k-stream')
      assert.ok(!row.body.includes(SECRET), row.body)
      assert.equal(row.body, first.text.replaceAll(SECRET, MARKER))
      const calls = server.model.requests.length
      const again = await raw(url, body, 'k-stream')
      assert.equal(again.headers.get('idempotent-replayed'), 'true')
      assert.match(again.headers.get('content-type') ?? '', /text\/event-stream/)
      assert.equal(again.text, first.text.replaceAll(SECRET, MARKER))
      assert.equal(server.model.requests.length, calls)
    })

    test('look-alike: text that is no secret is stored, hashed and replayed exactly as before', async (t) => {
      const server = await startServer(t, { storage: backend, env: { DEPLOY_TOKEN: SECRET } })
      for (const [key, url, body] of [
        ['k-json', `${server.url}/v1/responses`, JSON.stringify({ input: 'hi', instructions: `token ${LOOKALIKE}` })],
        ['k-sse', `${server.url}/v1/responses`, JSON.stringify({ input: 'hi', instructions: `token ${LOOKALIKE}`, stream: true })],
        ['k-chat', `${server.url}/v1/chat/completions`, JSON.stringify({ messages: [{ role: 'user', content: `token ${LOOKALIKE}` }] })],
      ] as const) {
        const first = await raw(url, body, key)
        assert.equal(first.status, 200, first.text)
        assert.ok(first.text.includes(LOOKALIKE), first.text)
        const row = await stored(server, key)
        assert.equal(row.body, first.text, 'stored byte for byte')
        assert.equal(row.request_hash, sha256(body), 'the hash of the body as sent')
        const calls = server.model.requests.length
        const again = await raw(url, body, key)
        assert.equal(again.headers.get('idempotent-replayed'), 'true')
        assert.equal(again.text, first.text, 'replayed byte for byte')
        assert.equal(server.model.requests.length, calls)
        const other = await raw(url, body.replace(LOOKALIKE, `${LOOKALIKE}x`), key)
        assert.equal(other.status, 422)
      }
    })
  })
}
