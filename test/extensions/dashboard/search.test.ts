// Dashboard search: a query the store cannot search (only a quote, `*`, a NUL) is the client's
// input, refused with 400 and a clear message, never a 500; an ordinary search still finds its hits.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SESSIONS_SERVICE, type SessionStore } from '../../../sdk/index.ts'
import { startDashboard } from './harness.ts'

test('a search with no words is a 400 naming q; a normal search answers its hits', async (t) => {
  const d = await startDashboard(t)
  const store = d.test.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  const session = await store.create({ source: 'cli' })
  await store.append(session.id, [{ role: 'user', content: 'where did the giraffe go' }])
  const { cookie } = await d.signIn()

  for (const q of ['%22', '*', '%00', '%22%22%20*']) {
    const res = await d.request(`/api/search?q=${q}`, { cookie })
    assert.equal(res.status, 400, `q=${q}: ${JSON.stringify(res.body)}`)
    assert.equal(res.body.error.param, 'q')
    assert.equal(res.body.error.code, 'invalid_query')
    assert.match(res.body.error.message, /^q cannot be searched: .*no words/)
  }

  const hits = await d.request('/api/search?q=giraffe', { cookie })
  assert.equal(hits.status, 200)
  assert.ok(hits.body.data.some((h: any) => h.session_id === session.id && /\[giraffe\]/.test(h.snippet)), JSON.stringify(hits.body))
})
