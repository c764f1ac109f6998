// The Chat and Sessions APIs against a real runtime and a scripted model: a chat streams its
// events (session, deltas, a tool call with output and duration, an approval answered through the
// API, done); the session is then listed, found by full-text search, renamed, exported and deleted.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { startDashboard } from './harness.ts'

const CHAT_BUILTINS = ['http', 'state-db', 'sessions', 'model-resolver', 'provider-openai-compat', 'runtime', 'approvals', 'tools-terminal', 'dashboard']

function parseEvents(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [head, ...rest] = block.split('\n')
      return { event: head!.slice(7), data: JSON.parse(rest.map((l) => l.slice(6)).join('\n')) }
    })
}

test('chat streams a tool call and an approval answered in the dashboard; the session is listed, searched, renamed, exported, deleted', async (t) => {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const command = 'rm -rf /nonexistent-dashboard-test-dir'
  model.enqueue({ toolCalls: [{ id: 'call_1', name: 'terminal', arguments: { command } }] }, { text: 'Removed the zebra folder as asked.' })
  const d = await startDashboard(t, {
    builtins: CHAT_BUILTINS,
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-scripted-model-key-000', AGENT_MODEL: 'scripted-model' },
  })
  const { cookie, csrf } = await d.signIn()

  const chat = fetch(`${d.url}/api/chat`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'please remove the zebra folder' }) })
  // The approval waits until answered: find it in the pending list and approve it.
  let pending: any[] = []
  for (let i = 0; i < 200 && pending.length === 0; i++) {
    pending = (await d.request('/api/approvals', { cookie })).body.data
    if (pending.length === 0) await new Promise((r) => setTimeout(r, 25))
  }
  assert.equal(pending.length, 1)
  assert.equal(pending[0].command, command)
  assert.equal((await d.request(`/api/approvals/${pending[0].id}`, { method: 'POST', cookie, body: JSON.stringify({ choice: 'bogus' }) , csrf })).status, 400)
  assert.equal((await d.request(`/api/approvals/${pending[0].id}`, { method: 'POST', cookie, body: JSON.stringify({ choice: 'once' }), csrf })).status, 200)
  assert.equal((await d.request(`/api/approvals/${pending[0].id}`, { method: 'POST', cookie, body: JSON.stringify({ choice: 'once' }), csrf })).status, 404, 'answered once')

  const res = await chat
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type')!, /text\/event-stream/)
  const events = parseEvents(await res.text())
  const names = events.map((e) => e.event)
  assert.equal(names[0], 'session')
  for (const name of ['approval', 'tool.start', 'tool.end', 'delta', 'done']) assert.ok(names.includes(name), `${name} in ${names.join(',')}`)
  const end = events.find((e) => e.event === 'tool.end')!.data
  assert.equal(end.name, 'terminal')
  assert.equal(typeof end.duration_ms, 'number')
  const done = events.find((e) => e.event === 'done')!.data
  assert.equal(done.answer, 'Removed the zebra folder as asked.')
  const sessionId = events[0]!.data.session_id

  const list = await d.request('/api/sessions', { cookie })
  assert.ok(list.body.data.some((s: any) => s.id === sessionId && s.source === 'dashboard'))
  const hits = await d.request('/api/search?q=zebra', { cookie })
  assert.ok(hits.body.data.some((h: any) => h.session_id === sessionId && /\[zebra\]/.test(h.snippet)))
  assert.equal((await d.request('/api/search', { cookie })).status, 400)

  // Continuing the stored session: the next message lands in it, with the history sent along.
  const again = await fetch(`${d.url}/api/chat`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'and the lion folder?', session_id: sessionId }) })
  const continued = parseEvents(await again.text())
  assert.equal(continued.find((e) => e.event === 'done')!.data.session_id, sessionId)
  assert.match(JSON.stringify(model.requests.at(-1)!.body.messages), /zebra folder.*lion folder/s)

  const one = await d.request(`/api/sessions/${sessionId}`, { cookie })
  assert.ok(one.body.messages.some((m: any) => m.role === 'tool'))
  assert.equal((await d.request(`/api/sessions/${sessionId}`, { method: 'PATCH', cookie, csrf, body: JSON.stringify({ title: 42 }) })).status, 400)
  assert.equal((await d.request(`/api/sessions/${sessionId}`, { method: 'PATCH', cookie, csrf, body: JSON.stringify({ title: 'Zebra cleanup' }) })).body.title, 'Zebra cleanup')
  const md = await d.request(`/api/sessions/${sessionId}/export?format=md`, { cookie })
  assert.match(md.headers.get('content-disposition')!, /attachment/)
  assert.match(md.body, /^# Zebra cleanup/)
  assert.match(md.body, /\*\*Tool call\*\* `terminal`/)
  const json = await d.request(`/api/sessions/${sessionId}/export?format=json`, { cookie })
  assert.equal(json.body.session.title, 'Zebra cleanup')
  assert.equal((await d.request(`/api/sessions/${sessionId}/export?format=pdf`, { cookie })).status, 400)
  assert.equal((await d.request(`/api/sessions/${sessionId}`, { method: 'DELETE', cookie, csrf })).body.deleted, true)
  assert.equal((await d.request(`/api/sessions/${sessionId}`, { cookie })).status, 404)
})

test('chat refuses an empty message or a malformed session id and changes nothing', async (t) => {
  const d = await startDashboard(t, { builtins: CHAT_BUILTINS })
  const { cookie, csrf } = await d.signIn()
  assert.equal((await d.request('/api/chat', { method: 'POST', cookie, csrf, body: JSON.stringify({ message: '  ' }) })).status, 400)
  assert.equal((await d.request('/api/chat', { method: 'POST', cookie, csrf, body: JSON.stringify({ message: 'hi', session_id: '../x' }) })).status, 400)
  assert.deepEqual((await d.request('/api/sessions', { cookie })).body.data, [])
})
