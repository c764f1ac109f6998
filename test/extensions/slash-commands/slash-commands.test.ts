// The core slash commands through the real registry, the real models service (resolver + the
// OpenAI-compatible provider against the scripted model) and config.yaml, acting on a recording
// ChatConversation (the surface's side is what the CLI and gateway implement).

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import YAML from 'yaml'
import { resolveSlash, type BackgroundTask, type ChatConversation, type ChatModel, type ModelSelection, type ReasoningEffort } from '../../../sdk/index.ts'
import { createTestKernel, startScriptedModel, type ScriptedModelServer, type TestKernel } from '../../../sdk/testing/index.ts'

let model: ScriptedModelServer
let tk: TestKernel

before(async () => {
  model = await startScriptedModel({ models: ['scripted-model', 'foo'] })
  tk = await createTestKernel({
    builtins: ['slash-commands', 'model-wizard', 'tools-cli', 'model-resolver', 'provider-openai-compat'],
    config: { _config_version: 10, keep: 'me' },
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url },
  })
})
after(async () => {
  await tk.close()
  await model.close()
})

function fakeChat(overrides: Partial<ChatConversation> = {}) {
  const calls: Array<[string, unknown]> = []
  let current: ChatModel = { provider: 'custom', model: 'scripted-model', origin: 'config' }
  let shown = false
  const chat: ChatConversation = {
    surface: 'cli',
    sessionId: 's1',
    title: () => undefined,
    setTitle: async (t) => void calls.push(['setTitle', t]),
    model: () => current,
    setModel: async (s: ModelSelection) => {
      calls.push(['setModel', s])
      current = { provider: s.provider, model: s.model, origin: 'session' }
    },
    reasoningEffort: () => undefined,
    setReasoningEffort: async (e: ReasoningEffort) => void calls.push(['setReasoningEffort', e]),
    showReasoning: () => shown,
    setShowReasoning: (s) => void (calls.push(['setShowReasoning', s]), (shown = s)),
    usage: () => ({ inputTokens: 2000, outputTokens: 100, reasoningTokens: 0, totalTokens: 2100, costUsd: 0.0075, inputCostUsd: 0.006, outputCostUsd: 0.0015, apiCalls: 1, turns: 1, contextTokens: 2100, contextLength: 32768, startedAt: Date.now() - 65_000 }),
    busy: () => false,
    stop: async () => (calls.push(['stop', null]), false),
    queue: (p) => (calls.push(['queue', p]), 2),
    newSession: async () => void calls.push(['newSession', null]),
    resume: async (id) => ({ id, title: 'T', messageCount: 4 }),
    recentSessions: async () => [{ id: 'a', title: 'first', updatedAt: 0, messageCount: 2 }],
    compress: async () => ({ beforeMessages: 10, afterMessages: 3, beforeTokens: 5000, afterTokens: 800 }),
    background: (prompt): BackgroundTask => (calls.push(['background', prompt]), { id: 'bg1', prompt, status: 'running', startedAt: Date.now() }),
    tools: () => [{ name: 'terminal', toolset: 'terminal', enabled: true, available: true }],
    setToolsEnabled: (names, on) => (calls.push(['setToolsEnabled', [names, on]]), names),
    ...overrides,
  }
  return { chat, calls }
}

async function slash(text: string, chat?: ChatConversation, surface: 'cli' | 'gateway' = 'cli'): Promise<string> {
  const resolved = resolveSlash(tk.kernel.registries.commands.list(), text, surface)
  assert.ok(resolved && !('unknown' in resolved), `${text} resolves`)
  const replies: string[] = []
  await resolved.command.slash!({ args: resolved.args, invokedAs: resolved.invokedAs, surface, reply: (t) => void replies.push(t), chat: chat as any })
  return replies.join('\n')
}

const config = () => YAML.parse(readFileSync(join(tk.home, 'config.yaml'), 'utf8'))

test('/model custom:foo switches for the session only and writes nothing', async () => {
  const { chat, calls } = fakeChat()
  const reply = await slash('/model custom:foo', chat)
  assert.match(reply, /Model switched to custom:foo for this session only; it reverts on restart/)
  assert.deepEqual(calls[0]?.[0], 'setModel')
  assert.equal((calls[0]![1] as ModelSelection).model, 'foo')
  assert.equal(config().model, undefined)
})

test('/model with --save writes model.provider and model.default and says so', async () => {
  const { chat } = fakeChat()
  const reply = await slash('/model custom:foo --save', chat)
  assert.match(reply, /Model switched to custom:foo and saved to config/)
  assert.equal(config().model.provider, 'custom')
  assert.equal(config().model.default, 'foo')
  assert.equal(config().keep, 'me')
})

test('an invalid model is rejected with the hint, nothing changes', async () => {
  const { chat, calls } = fakeChat()
  const before = readFileSync(join(tk.home, 'config.yaml'), 'utf8')
  const reply = await slash('/model custom:nosuch', chat)
  assert.match(reply, /^✗ Model not changed: unknown model "nosuch"/)
  assert.match(reply, /Use \/model to see the current model and \/provider to list providers\./)
  assert.equal(calls.length, 0)
  assert.equal(readFileSync(join(tk.home, 'config.yaml'), 'utf8'), before)
})

test('/reasoning: a level saves and re-initialises; show/hide only toggle the display', async () => {
  const { chat, calls } = fakeChat()
  assert.match(await slash('/reasoning high', chat), /Reasoning effort set to high and saved to config; the agent was re-initialised/)
  assert.equal(config().agent.reasoning_effort, 'high')
  assert.deepEqual(calls, [['setReasoningEffort', 'high']])
  calls.length = 0
  assert.match(await slash('/reasoning show', chat), /Reasoning display on/)
  assert.match(await slash('/reasoning off', chat), /Reasoning display off/)
  assert.deepEqual(calls, [['setShowReasoning', true], ['setShowReasoning', false]])
  calls.length = 0
  assert.match(await slash('/reasoning loud', chat), /Unknown reasoning setting "loud"/)
  assert.equal(calls.length, 0)
  assert.equal(config().agent.reasoning_effort, 'high')
})

test('/usage shows tokens, context, the cost breakdown and the duration; show_cost false hides cost', async () => {
  const { chat } = fakeChat()
  const reply = await slash('/usage', chat)
  assert.match(reply, /cost:\s+\$0\.0075 \(input \$0\.0060 \+ output \$0\.0015\)/)
  assert.match(reply, /context:\s+2\.1k \/ 33k \(6%\)/)
  assert.match(reply, /duration:\s+1m 0[45]s/)
  await tk.kernel.settings.set('display.show_cost', false)
  assert.doesNotMatch(await slash('/usage', chat), /cost:/)
  await tk.kernel.settings.set('display.show_cost', undefined)
  const unpriced = fakeChat({ usage: () => ({ inputTokens: 2000, outputTokens: 100, reasoningTokens: 0, totalTokens: 2100, apiCalls: 1, turns: 1, contextTokens: 2100, startedAt: Date.now() }) })
  assert.match(await slash('/usage', unpriced.chat), /cost:\s+unknown \(no price for scripted-model; set pricing in config\.yaml\)\n/, 'no price is "unknown", the wording insights uses too')
})

test('session commands act on the conversation', async () => {
  const { chat, calls } = fakeChat()
  assert.match(await slash('/queue do this next', chat), /Queued \(position 2\)/)
  assert.match(await slash('/q', chat), /Usage: \/queue <prompt>/)
  assert.match(await slash('/background fetch the news', chat), /Background task bg1 started/)
  assert.match(await slash('/reset', chat), /Started a new session/)
  assert.match(await slash('/stop', chat), /Nothing is running/)
  assert.match(await slash('/compress', chat), /Compressed context: 10 → 3 messages, ~5\.0k → ~800 tokens/)
  assert.match(await slash('/resume', chat), /a .* first/)
  assert.match(await slash('/resume T', chat), /Resumed session "T" \(T, 4 messages\)/)
  assert.match(await slash('/title ' + 'x'.repeat(101), chat), /at most 100 characters/)
  assert.deepEqual(calls.map((c) => c[0]), ['queue', 'background', 'newSession', 'stop'])
})

test('/tools refuses unknown names and changes nothing; /help is derived from the registry per surface', async () => {
  const { chat, calls } = fakeChat()
  assert.match(await slash('/tools disable nosuch', chat), /Unknown tool or toolset: nosuch\. Nothing changed/)
  assert.equal(calls.length, 0)
  assert.match(await slash('/tools disable terminal', chat), /Disabled for this session: terminal/)
  const cli = await slash('/help', chat)
  assert.match(cli, /\/statusbar - Show or hide the status bar \(also \/sb\)/)
  assert.match(cli, /\/new - Start a fresh session \(also \/reset\)/)
  const gateway = await slash('/help', chat, 'gateway')
  assert.doesNotMatch(gateway, /\/statusbar/)
  assert.equal(resolveSlash(tk.kernel.registries.commands.list(), '/statusbar', 'gateway') && 'unknown' in resolveSlash(tk.kernel.registries.commands.list(), '/statusbar', 'gateway')!, true)
})

test('a command without a conversation says so in one line', async () => {
  const resolved = resolveSlash(tk.kernel.registries.commands.list(), '/usage', 'gateway')
  assert.ok(resolved && !('unknown' in resolved))
  await assert.rejects(async () => resolved.command.slash!({ args: '', invokedAs: 'usage', surface: 'gateway', reply: () => undefined }), /\/usage needs a conversation/)
})
