// Context compression: near the context limit the older turns are summarised by the summary model,
// the conversation continues in a new session (lineage `compression`, title `#2`), the old one ends
// with reason `compression`; a summary without text does not crash; `compression.summary_base_url`
// sends summaries to another endpoint; runtime.compress() compresses on demand.

import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { test } from 'node:test'
import type { RunEvent } from 'agent/sdk'
import { startScriptedModel, type ScriptedTurn } from 'agent/sdk/testing'
import { chatRequests, runtimeFixture } from './helpers.ts'

const isSummaryRequest = (body: any) => String(body.messages?.[0]?.content ?? '').startsWith('You summarise')
/** Reports prompt tokens like a real endpoint would (about 4 characters each). */
const measured = (body: any, turn: ScriptedTurn): ScriptedTurn => ({ usage: { prompt_tokens: Math.ceil(JSON.stringify(body.messages).length / 4), completion_tokens: 5 }, ...turn })
const echo = (body: any): ScriptedTurn => measured(body, { text: `noted ${body.messages.at(-1).content.length} characters` })

const small = (extra: Record<string, unknown> = {}) => ({ model: { context_length: 1000 }, compression: { threshold: 0.5, keep_recent: 1, ...extra } })

test('near the limit, older turns are summarised and the run continues in a titled continuation session', async (t) => {
  const { runtime, sessions, model } = await runtimeFixture(t, {
    config: small(),
    model: { respond: (body) => (isSummaryRequest(body) ? measured(body, { text: 'SUMMARY: the user sent two long notes about apples.' }) : echo(body)) },
  })
  const first = await runtime.run({ input: `apples ${'a'.repeat(1200)}`, title: 'Research' })
  assert.equal(first.sessionId, (await sessions.resolve('Research'))!.id)
  const events: RunEvent[] = []
  const second = await runtime.run({ input: `pears ${'p'.repeat(600)}`, sessionId: first.sessionId, onEvent: (e) => events.push(e) })
  assert.notEqual(second.sessionId, first.sessionId, 'the conversation moved to a continuation')
  assert.deepEqual(events.filter((e) => e.type === 'compressed'), [{ type: 'compressed', sessionId: second.sessionId, parentSessionId: first.sessionId }])

  const summaryCalls = chatRequests(model).filter((r) => isSummaryRequest(r.body))
  assert.equal(summaryCalls.length, 1)
  assert.match(summaryCalls[0]!.body.messages[1].content, /USER: apples a+/)
  const main = chatRequests(model).filter((r) => !isSummaryRequest(r.body)).at(-1)!.body.messages
  assert.match(main[0].content, /# Summary of the earlier conversation \(continued from session .*\)\nSUMMARY: the user sent two long notes about apples\./)
  assert.deepEqual(main.slice(1).map((m: any) => m.role), ['user'], 'only the recent turn is sent verbatim')
  assert.match(main[1].content, /^pears/)

  const parent = (await sessions.get(first.sessionId))!
  const child = (await sessions.get(second.sessionId))!
  assert.equal(parent.endReason, 'compression')
  assert.equal(parent.title, 'Research')
  assert.equal(child.parentId, parent.id)
  assert.equal(child.lineage, 'compression')
  assert.equal(child.title, 'Research #2')
  assert.deepEqual((await sessions.messages(child.id)).map((m) => m.role), ['system', 'user', 'assistant'])
  // Resuming by the old id or by the title lands in the continuation.
  assert.equal((await sessions.resolve('Research'))!.id, child.id)
  const third = await runtime.run({ input: 'short', sessionId: first.sessionId })
  assert.equal(third.sessionId, child.id)
})

test('a summary answer with no text (tool calls, null content) does not crash: a digest of the requests is kept', async (t) => {
  const { runtime, sessions } = await runtimeFixture(t, {
    config: small(),
    model: { respond: (body) => (isSummaryRequest(body) ? measured(body, { toolCalls: [{ name: 'read_file', arguments: { path: 'x' } }] }) : echo(body)) },
  })
  const first = await runtime.run({ input: `first request ${'a'.repeat(1200)}` })
  const second = await runtime.run({ input: `second request ${'b'.repeat(600)}`, sessionId: first.sessionId })
  assert.equal(second.exitReason, 'completed')
  assert.notEqual(second.sessionId, first.sessionId)
  const [summary] = await sessions.messages(second.sessionId)
  assert.equal(summary!.role, 'system')
  assert.match(String(summary!.content), /No summary text was available/)
  assert.match(String(summary!.content), /- first request a+/)
})

test('compression.summary_base_url and summary_model send the summary to their own endpoint', async (t) => {
  const summarizer = await startScriptedModel({ respond: () => ({ text: 'SUMMARY FROM THE SIDE ENDPOINT' }) })
  t.after(() => summarizer.close())
  const { runtime, model } = await runtimeFixture(t, {
    config: small({ summary_base_url: summarizer.url, summary_model: 'tiny-summarizer' }),
    model: { respond: echo },
  })
  const first = await runtime.run({ input: `x ${'a'.repeat(1200)}` })
  await runtime.run({ input: `y ${'b'.repeat(600)}`, sessionId: first.sessionId })
  assert.equal(chatRequests(model).filter((r) => isSummaryRequest(r.body)).length, 0, 'the main endpoint summarised nothing')
  const side = chatRequests(summarizer)
  assert.equal(side.length, 1)
  assert.equal(side[0]!.body.model, 'tiny-summarizer')
  assert.match(chatRequests(model).at(-1)!.body.messages[0].content, /SUMMARY FROM THE SIDE ENDPOINT/)
})

test('when the summary endpoint is down the run goes on uncompressed', async (t) => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  const { runtime } = await runtimeFixture(t, { config: small({ summary_base_url: `http://127.0.0.1:${port}/v1`, summary_model: 'm' }), model: { respond: echo } })
  const first = await runtime.run({ input: `x ${'a'.repeat(1200)}` })
  const second = await runtime.run({ input: `y ${'b'.repeat(600)}`, sessionId: first.sessionId })
  assert.equal(second.exitReason, 'completed')
  assert.equal(second.sessionId, first.sessionId)
})

test('runtime.compress() compresses a stored session on demand and says when there is too little', async (t) => {
  const { runtime, sessions, model } = await runtimeFixture(t, {
    config: { compression: { keep_recent: 2 } },
    model: { respond: (body) => (isSummaryRequest(body) ? { text: 'MANUAL SUMMARY' } : { text: 'ok' }) },
  })
  const run = await runtime.run({ input: 'one' })
  const tooLittle = await runtime.compress(run.sessionId)
  assert.equal(tooLittle.compressed, false)
  assert.match(tooLittle.reason!, /not enough conversation/)
  assert.equal(tooLittle.sessionId, run.sessionId)
  await runtime.run({ input: 'two', sessionId: run.sessionId })
  await runtime.run({ input: 'three', sessionId: run.sessionId })
  const outcome = await runtime.compress(run.sessionId)
  assert.equal(outcome.compressed, true)
  assert.equal(outcome.parentSessionId, run.sessionId)
  assert.equal(outcome.beforeMessages, 6)
  assert.equal(outcome.afterMessages, 2)
  assert.ok(outcome.beforeTokens > 0 && outcome.afterTokens > 0)
  assert.deepEqual((await sessions.messages(outcome.sessionId)).map((m) => [m.role, typeof m.content === 'string' ? m.content.split('\n').at(-1) : m.content]), [
    ['system', 'MANUAL SUMMARY'],
    ['user', 'three'],
    ['assistant', 'ok'],
  ])
  // The summary request carried the older turns and not the kept ones.
  const summaryBody = chatRequests(model).find((r) => isSummaryRequest(r.body))!.body
  assert.match(summaryBody.messages[1].content, /USER: one[\s\S]*USER: two/)
  assert.doesNotMatch(summaryBody.messages[1].content, /USER: three/)
  // A second compression folds the first summary in.
  await runtime.run({ input: 'four', sessionId: outcome.sessionId })
  const again = await runtime.compress(run.sessionId)
  assert.equal(again.compressed, true)
  assert.equal(again.parentSessionId, outcome.sessionId, 'compress() follows the lineage to the tip')
  assert.match(chatRequests(model).filter((r) => isSummaryRequest(r.body)).at(-1)!.body.messages[1].content, /EARLIER SUMMARY:[\s\S]*MANUAL SUMMARY/)
  await assert.rejects(runtime.compress('no-such-session'), /no session "no-such-session"/)
})
