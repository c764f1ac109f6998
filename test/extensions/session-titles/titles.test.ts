// Automatic session titles: the auxiliary model's title (task `title`) after the first exchange,
// unique with ` (2)`, never over a hand-set title, the first words when the model fails or none is
// configured, no known secret in a title or in the title request; and through the real bin:
// `chat -q`, `sessions list --json`, `--resume <title>`.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import YAML from 'yaml'
import { defineExtension, RUNTIME_SERVICE, SESSIONS_SERVICE, type AgentRuntime, type SessionStore } from 'agent/sdk'
import { createTestKernel, startScriptedModel, type ScriptedModelServer, type ScriptedTurn } from 'agent/sdk/testing'
import { fallbackTitle, parseModelTitle } from '../../../extensions/session-titles/title.ts'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { until } from '../../helpers/until.ts'

const SECRET = 'sk-title-secret-0123456789abcdef'
const isTitleRequest = (body: any) => String(body?.messages?.[0]?.content ?? '').startsWith('You name conversations')
const titleRequests = (model: ScriptedModelServer) => model.requests.filter((r) => r.path.endsWith('/chat/completions') && isTitleRequest(r.body))

interface Titled {
  sessionId: string
  title: string | null
  by: string
}

/** A kernel with the runtime, sessions and titles; `title` answers the title requests. */
async function titled(t: TestContext, title: (body: any) => ScriptedTurn, config: Record<string, unknown> = { auxiliary: { title: { model: 'title-model' } } }) {
  const model = await startScriptedModel({ respond: (body) => (isTitleRequest(body) ? title(body) : { text: 'Lisbon has trams and custard tarts.' }) })
  t.after(() => model.close())
  const events: Titled[] = []
  const recorder = defineExtension({
    name: 'test-title-events',
    setup(api) {
      api.hooks.observe.tap((event) => void (event.type === 'session.titled' && events.push(event as unknown as Titled)))
    },
  })
  const k = await createTestKernel({
    builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'session-titles'],
    extensions: [recorder],
    config,
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: SECRET },
  })
  t.after(() => k.close())
  const runtime = k.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE)
  const store = k.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  const titleOf = async (id: string) => (await store.get(id))?.title
  /** The titling outcome of a session, once it is there. */
  const outcome = async (sessionId: string) => {
    await until(() => events.some((e) => e.sessionId === sessionId), 15_000, `the titling of ${sessionId}`)
    return events.find((e) => e.sessionId === sessionId)!
  }
  /** Runs a turn and waits (bounded) for its titling. */
  const runTitled = async (input: string) => {
    const { sessionId } = await runtime.run({ input })
    const done = await outcome(sessionId)
    assert.equal(await titleOf(sessionId), done.title ?? undefined)
    return { sessionId, title: done.title, by: done.by }
  }
  return { model, k, runtime, store, events, titleOf, outcome, runTitled }
}

test('the auxiliary model titles a session after its first exchange; a second alike becomes "… (2)"; no secret in the request', async (t) => {
  const { model, runTitled, runtime, titleOf } = await titled(t, () => ({ text: '"Trip to Lisbon."' }))
  const first = await runTitled(`Plan a weekend in Lisbon for me, my key is ${SECRET}`)
  assert.equal(first.title, 'Trip to Lisbon')
  const requests = titleRequests(model)
  assert.equal(requests.length, 1)
  assert.equal(requests[0]!.body.model, 'title-model', 'the title task’s model')
  assert.ok(!JSON.stringify(requests[0]!.body).includes(SECRET), 'the title request carries no known secret')
  assert.match(requests[0]!.body.messages[1].content, /Lisbon has trams/, 'the answer is shown with the question')
  const second = await runTitled('And a weekend in Lisbon in winter?')
  assert.equal(second.title, 'Trip to Lisbon (2)')
  // Later exchanges do not re-title, nor ask again.
  await runtime.run({ input: 'more', sessionId: first.sessionId })
  assert.equal(await titleOf(first.sessionId), 'Trip to Lisbon')
  assert.equal(titleRequests(model).length, 2)
})

test('a hand-set title is kept, also one set while the model is still thinking', async (t) => {
  const { model, runtime, store, titleOf, outcome, events } = await titled(t, () => ({ text: 'Model title', delayMs: 300 }))
  const named = await store.create({ source: 'cli', title: 'My own name' })
  await runtime.run({ input: 'hello there', sessionId: named.id })
  const { sessionId } = await runtime.run({ input: 'what is the weather like' })
  // While the title request is in flight, the user names the session.
  await until(() => titleRequests(model).length >= 1, 10_000, 'the title request')
  await store.setTitle(sessionId, 'Weather, by hand')
  const kept = await outcome(sessionId)
  assert.deepEqual([kept.title, kept.by], [null, 'model'], 'the model answered, the hand-set title was kept')
  assert.equal(await titleOf(sessionId), 'Weather, by hand')
  assert.equal(await titleOf(named.id), 'My own name')
  assert.equal(titleRequests(model).length, 1, 'no title request for a session that had a title')
  assert.ok(!events.some((e) => e.sessionId === named.id))
})

test('when the title model fails, or none is configured, the first words of the question are the title', async (t) => {
  const failing = await titled(t, () => ({ status: 400, error: 'bad request' }))
  const a = await failing.runTitled('  **how do I** rotate `nginx` logs every week on Debian and keep a month of them?')
  assert.deepEqual([a.title, a.by], ['How do I rotate nginx logs every week on Debian', 'first_words'])
  assert.equal(titleRequests(failing.model).length, 1)

  const plain = await titled(t, () => ({ text: 'never asked' }), {})
  const b = await plain.runTitled(`deploy with token ${SECRET} please`)
  assert.equal(b.title, 'Deploy with token please', 'the redacted text, marker dropped')
  assert.equal(titleRequests(plain.model).length, 0, 'no auxiliary.title: no model call')
})

test('sessions of a schedule or a webhook are not titled; a chat platform’s are', async (t) => {
  const { runtime, titleOf, runTitled } = await titled(t, () => ({ text: 'Never used' }), {})
  const cron = await runtime.run({ input: 'daily report please', source: { platform: 'cron', userId: 'job-1', chatId: 'job-1' } })
  const hook = await runtime.run({ input: 'a push happened', source: { platform: 'webhook', userId: 'webhook:gh', chatId: 'c' } })
  // A run after them (a model call later): their titling, had it run, would be done by now.
  const chat = await runTitled('weekly report please')
  assert.equal(chat.title, 'Weekly report please')
  assert.equal(await titleOf(cron.sessionId), undefined)
  assert.equal(await titleOf(hook.sessionId), undefined)
})

test('title text rules: markdown, quotes, links, numbering and over-long answers', () => {
  assert.equal(parseModelTitle('Title: "Fixing the **login** bug."\nextra'), 'Fixing the login bug')
  assert.equal(parseModelTitle('Release notes #2'), 'Release notes')
  assert.equal(parseModelTitle(''), undefined)
  assert.equal(parseModelTitle('word '.repeat(40)), undefined)
  assert.equal(parseModelTitle('Поездка в Лиссабон'), 'Поездка в Лиссабон', 'other scripts are kept as they are')
  assert.equal(fallbackTitle('see https://example.com/x?y=1 for [the docs](https://d.example) now'), 'See for the docs now')
  assert.equal(fallbackTitle('```\ncode only\n```'), undefined)
  assert.equal([...fallbackTitle('a'.repeat(300))!].length, 60)
})

test('through the bin: chat -q titles the session, sessions list --json shows it, --resume <title> continues it', async (t) => {
  const model = await startScriptedModel({ respond: (body) => (isTitleRequest(body) ? { text: 'Sourdough starter care' } : { text: 'Feed it daily.' }) })
  t.after(() => model.close())
  const home = tempDir(t, 'agent-home-')
  // A generous exit wait: a loaded test machine must not turn this into the fallback.
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ auxiliary: { title: { model: 'title-model' } }, session_titles: { exit_wait: 20 } }))
  const env = { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-titles' }
  const agent = (...args: string[]) => runAgent(args, { home, env, timeoutMs: 60_000 })
  const first = await agent('chat', '-q', 'how often do I feed my sourdough starter?')
  assert.equal(first.code, 0, first.stderr)
  assert.equal(first.stdout.trim(), 'Feed it daily.')
  const listed = jsonOf(await agent('sessions', 'list', '--json')) as Array<{ id: string; title: string | null }>
  assert.deepEqual(listed.map((s) => s.title), ['Sourdough starter care'])
  const resumed = await agent('chat', '-q', 'and in winter?', '--resume', 'Sourdough starter care')
  assert.equal(resumed.code, 0, resumed.stderr)
  const last = model.requests.filter((r) => r.path.endsWith('/chat/completions') && !isTitleRequest(r.body)).at(-1)!.body
  assert.ok(last.messages.some((m: any) => m.content === 'how often do I feed my sourdough starter?'), 'the resumed run saw the first exchange')
  // Renamed by hand: kept through later runs.
  assert.equal((await agent('sessions', 'rename', 'Sourdough starter care', 'Bread')).code, 0)
  await agent('chat', '-q', 'thanks', '--resume', 'Bread')
  const after = jsonOf(await agent('sessions', 'list', '--json')) as Array<{ title: string | null }>
  assert.deepEqual(after.map((s) => s.title), ['Bread'])
})
