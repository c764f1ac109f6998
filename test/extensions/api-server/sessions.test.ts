// Session continuity with the real runtime and session store: the model sees every conversation
// exactly once (never the stored transcript and the resent history both), a chain or a resent chat is
// one session holding the whole conversation, and forks, retries and first contact mid-conversation
// are seeded into a session of their own.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { rmSync } from 'node:fs'
import type { SessionStore } from '../../../sdk/index.ts'
import { backendSkip, makeTempHome, STORAGE_BACKENDS, testStorage } from '../../../sdk/testing/index.ts'
import { post, startServer } from './harness.ts'

const convo = (body: any): string[] => body.messages.filter((m: any) => m.role === 'user' || m.role === 'assistant').map((m: any) => `${m.role}:${m.content}`)

async function storedConvo(server: Awaited<ReturnType<typeof startServer>>, sessionId: string): Promise<string[]> {
  const sessions = server.test.kernel.services.require<SessionStore>('sessions')
  const messages = await sessions.messages(sessionId)
  return messages.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => `${m.role}:${m.content}`)
}

for (const backend of STORAGE_BACKENDS) {
  describe(`session continuity [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('chat: a resent conversation is continued in its session and reaches the model exactly once', async (t) => {
      const server = await startServer(t, { storage: backend })
      const url = `${server.url}/v1/chat/completions`
      const messages: any[] = [{ role: 'user', content: 'one' }]
      const first = await post(url, { messages })
      const session = first.headers.get('x-agent-session-id')!
      messages.push(first.body.choices[0].message, { role: 'user', content: 'two' })
      const second = await post(url, { messages })
      assert.equal(second.headers.get('x-agent-session-id'), session)
      messages.push(second.body.choices[0].message, { role: 'user', content: 'three' })
      const third = await post(url, { messages })
      assert.equal(third.headers.get('x-agent-session-id'), session)
      const expected = ['user:one', 'assistant:echo: one', 'user:two', 'assistant:echo: two', 'user:three']
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), expected)
      assert.deepEqual(await storedConvo(server, session), [...expected, 'assistant:echo: three'])
      const sessions = server.test.kernel.services.require<SessionStore>('sessions')
      assert.equal((await sessions.get(session))!.source, 'api_server')
    })

    test('chat: first contact mid-conversation seeds a session; a regenerate forks; a failed turn is not continued', async (t) => {
      const server = await startServer(t, { storage: backend })
      const url = `${server.url}/v1/chat/completions`
      const history = [{ role: 'user', content: 'earlier question' }, { role: 'assistant', content: 'earlier answer' }]
      const seeded = await post(url, { messages: [...history, { role: 'user', content: 'now' }] })
      const session = seeded.headers.get('x-agent-session-id')!
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), ['user:earlier question', 'assistant:earlier answer', 'user:now'])
      assert.deepEqual(await storedConvo(server, session), ['user:earlier question', 'assistant:earlier answer', 'user:now', 'assistant:echo: now'])
      const record = await server.test.kernel.services.require<SessionStore>('sessions').get(session)
      assert.deepEqual([record?.source, record?.provider, record?.model], ['api_server', 'custom', 'scripted-model'])

      const next = [...history, { role: 'user', content: 'now' }, { role: 'assistant', content: 'echo: now' }, { role: 'user', content: 'later' }]
      const continued = await post(url, { messages: next })
      assert.equal(continued.headers.get('x-agent-session-id'), session)
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), next.map((m) => `${m.role}:${m.content}`))

      // Regenerating "now" (the conversation already moved past it) must not show the model the later turn.
      const regenerated = await post(url, { messages: [...history, { role: 'user', content: 'now' }] })
      assert.notEqual(regenerated.headers.get('x-agent-session-id'), session)
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), ['user:earlier question', 'assistant:earlier answer', 'user:now'])

      // A turn that fails leaves its session behind; resending it starts clean.
      const failing = [...next, { role: 'assistant', content: 'echo: later' }, { role: 'user', content: 'break' }]
      server.model.enqueue({ status: 400, error: 'bad request upstream' })
      assert.equal((await post(url, { messages: failing })).status, 500)
      const retried = await post(url, { messages: failing })
      assert.equal(retried.status, 200)
      assert.notEqual(retried.headers.get('x-agent-session-id'), session)
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), failing.map((m) => `${m.role}:${m.content}`))
    })

    test('responses: a chain is one session holding the whole conversation; a fork from an older response gets its own', async (t) => {
      const server = await startServer(t, { storage: backend })
      const client = server.client()
      const r1 = await client.responses.create({ model: 'agent', input: 'alpha' }).withResponse()
      const r2 = await client.responses.create({ model: 'agent', input: 'beta', previous_response_id: r1.data.id }).withResponse()
      // Input items before the last user message join the conversation.
      const r3 = await client.responses
        .create({ model: 'agent', previous_response_id: r2.data.id, input: [{ role: 'user', content: 'aside' }, { role: 'assistant', content: 'noted' }, { role: 'user', content: 'gamma' }] })
        .withResponse()
      const session = r1.response.headers.get('x-agent-session-id')!
      assert.equal(r2.response.headers.get('x-agent-session-id'), session)
      assert.equal(r3.response.headers.get('x-agent-session-id'), session)
      const expected = ['user:alpha', 'assistant:echo: alpha', 'user:beta', 'assistant:echo: beta', 'user:aside', 'assistant:noted', 'user:gamma']
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), expected)
      assert.deepEqual(await storedConvo(server, session), [...expected, 'assistant:echo: gamma'])

      const fork = await client.responses.create({ model: 'agent', input: 'delta', previous_response_id: r1.data.id }).withResponse()
      assert.notEqual(fork.response.headers.get('x-agent-session-id'), session)
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), ['user:alpha', 'assistant:echo: alpha', 'user:delta'])
      const forkNext = await client.responses.create({ model: 'agent', input: 'epsilon', previous_response_id: fork.data.id }).withResponse()
      assert.equal(forkNext.response.headers.get('x-agent-session-id'), fork.response.headers.get('x-agent-session-id'))
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), ['user:alpha', 'assistant:echo: alpha', 'user:delta', 'assistant:echo: delta', 'user:epsilon'])

      // store=false on the head of the chain: it reads the session but writes nothing, so the chain goes on.
      const before = await storedConvo(server, session)
      const aside = await client.responses.create({ model: 'agent', input: 'off the record', previous_response_id: r3.data.id, store: false })
      assert.equal(aside.output_text, 'echo: off the record')
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), [...expected, 'assistant:echo: gamma', 'user:off the record'])
      assert.deepEqual(await storedConvo(server, session), before)
      const r4 = await client.responses.create({ model: 'agent', input: 'zeta', previous_response_id: r3.data.id }).withResponse()
      assert.equal(r4.response.headers.get('x-agent-session-id'), session)
      assert.deepEqual(convo(server.model.requests.at(-1)!.body), [...expected, 'assistant:echo: gamma', 'user:zeta'])
    })

    test('a chat conversation continues in its session after a restart', async (t) => {
      const home = makeTempHome()
      const storage = await testStorage(t, backend)
      t.after(() => rmSync(home, { recursive: true, force: true }))
      const first = await startServer(t, { storage, home })
      const opening = await post(`${first.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'before the restart' }] })
      const session = opening.headers.get('x-agent-session-id')!
      await first.stop()
      const second = await startServer(t, { storage, home, modelServer: first.model })
      const messages = [{ role: 'user', content: 'before the restart' }, opening.body.choices[0].message, { role: 'user', content: 'after it' }]
      const continued = await post(`${second.url}/v1/chat/completions`, { messages })
      assert.equal(continued.headers.get('x-agent-session-id'), session)
      assert.deepEqual(convo(second.model.requests.at(-1)!.body), ['user:before the restart', 'assistant:echo: before the restart', 'user:after it'])
    })
  })
}
