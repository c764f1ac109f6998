// RunRequest.storeBehind (the API server's runs): a new session, its input and the answer are
// committed together behind the answer, not before the model call; whatever needs the stored
// session first (a tool, a failure, an interrupt) still finds it.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { SessionStore } from 'agent/sdk'
import { runtimeFixture, toolsExtension } from './helpers.ts'

/** What the store holds at this moment (a read commits every write already queued). */
async function storedNow(sessions: SessionStore): Promise<Array<[string, unknown]>> {
  const all = await sessions.list()
  return all.length ? (await sessions.messages(all[0]!.id)).map((m) => [m.role, m.content]) : []
}

test('storeBehind: nothing is committed before the model answers; session, input and answer land together', async (t) => {
  let seenByModel: Array<[string, unknown]> | undefined
  const { runtime, sessions, model } = await runtimeFixture(t)
  // The model's answer is computed in this process: look at the store while the run waits for it.
  model.respond((body) => {
    void storedNow(sessions).then((rows) => (seenByModel ??= rows))
    return { text: `echo: ${body.messages.at(-1).content}` }
  })
  const result = await runtime.run({ input: 'hi', storeBehind: true })
  assert.deepEqual(seenByModel, [], 'no session was committed before the answer')
  assert.ok(result.stored, 'the run hands back the pending commit')
  await result.stored
  assert.deepEqual(await storedNow(sessions), [['user', 'hi'], ['assistant', 'echo: hi']])
  assert.equal((await sessions.get(result.sessionId))!.lastExitReason, 'completed')
})

test('storeBehind: a session created with its answer holds the totals a run stored as it goes would', async (t) => {
  const { runtime, sessions, model } = await runtimeFixture(t)
  model.respond(() => ({ text: 'ok', usage: { prompt_tokens: 12, completion_tokens: 6 } }))
  const behind = await runtime.run({ input: 'hi', storeBehind: true })
  await behind.stored
  const asItGoes = await runtime.run({ input: 'hi' })
  const [a, b] = [(await sessions.get(behind.sessionId))!, (await sessions.get(asItGoes.sessionId))!]
  for (const field of ['messageCount', 'usage', 'apiCalls', 'lastExitReason', 'model', 'provider', 'source'] as const) assert.deepEqual(a[field], b[field], field)
  assert.equal(a.messageCount, 2)
  assert.equal(a.usage.inputTokens, 12)
})

test('without storeBehind the session and its input are stored while the model answers', async (t) => {
  let seenByModel: Array<[string, unknown]> | undefined
  const { runtime, sessions, model } = await runtimeFixture(t)
  model.respond(() => {
    void storedNow(sessions).then((rows) => (seenByModel ??= rows))
    return { text: 'ok' }
  })
  const result = await runtime.run({ input: 'hi' })
  assert.equal(result.stored, undefined)
  assert.deepEqual(seenByModel, [['user', 'hi']])
})

test('storeBehind: a tool of the agent finds the session stored before it runs', async (t) => {
  let seenByTool: Array<[string, unknown]> | undefined
  const look = { name: 'look', description: 'Look at the store', parameters: { type: 'object', properties: {} }, execute: async () => ((seenByTool = await storedNow(sessions)), 'looked') }
  const { runtime, sessions } = await runtimeFixture(t, {
    extensions: [toolsExtension('look-tools', [look])],
    model: { turns: [{ toolCalls: [{ id: 'c1', name: 'look', arguments: {} }] }, { text: 'done' }] },
  })
  const result = await runtime.run({ input: 'look', storeBehind: true })
  assert.deepEqual(seenByTool?.map(([role]) => role), ['user', 'assistant'], 'the input and the tool call were committed first')
  await result.stored
  assert.deepEqual((await storedNow(sessions)).map(([role]) => role), ['user', 'assistant', 'tool', 'assistant'])
})

test('storeBehind: a failed model call still stores the input with the error', async (t) => {
  const { runtime, sessions } = await runtimeFixture(t, { model: { turns: [{ status: 400, error: 'bad request' }] } })
  await assert.rejects(runtime.run({ input: 'will fail', storeBehind: true }), /bad request/)
  const [session] = await sessions.list()
  assert.ok(session, 'the session was created')
  assert.equal(session.lastExitReason, 'error')
  assert.deepEqual(await storedNow(sessions), [['user', 'will fail']])
})

test('storeBehind: an interrupted run keeps its input', async (t) => {
  // The answer comes long after the abort (not so long that its timer holds the test file up).
  const { runtime, sessions } = await runtimeFixture(t, { model: { turns: [{ text: 'late', delayMs: 1_500 }] } })
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 100)
  const result = await runtime.run({ input: 'slow please', signal: controller.signal, storeBehind: true })
  assert.equal(result.exitReason, 'interrupted')
  await result.stored
  assert.deepEqual(await storedNow(sessions), [['user', 'slow please']])
  assert.equal((await sessions.get(result.sessionId))!.lastExitReason, 'interrupted')
})
