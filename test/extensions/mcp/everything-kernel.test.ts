// server-everything (stdio) and a growing fixture server in a running agent with the real runtime:
// progress notifications become the run's tool.progress events, an elicitation form reaches the
// surface's prompt and its answers the server, prompts are slash commands of the
// registry whose text goes to the conversation, and a list-changed notification brings a new tool
// in without /reload-mcp.

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { defineExtension, DELIVERY_SERVICE, parseElicitationValue, RUNTIME_SERVICE, type AgentRuntime, type ChatConversation, type ElicitationPrompt, type ElicitationRequest, type ElicitationValue, type CommandDefinition, type RunEvent, type ToolDefinition } from 'agent/sdk'
import { createTestKernel, makeTempHome, startScriptedModel, type ScriptedModelServer, type TestKernel } from 'agent/sdk/testing'
import { untilValue as until } from '../../helpers/until.ts'
import { EVERYTHING_BIN } from './everything-server.ts'

const FIXTURE = fileURLToPath(new URL('../../fixtures/mcp/stdio-server.mjs', import.meta.url))

describe('server-everything in a running agent: progress, prompts, list-changed', () => {
  let t: TestKernel
  let model: ScriptedModelServer
  const sent: string[] = []
  const fakeDelivery = defineExtension({
    name: 'fake-delivery',
    version: '1.0.0',
    setup(api) {
      api.services.provide(DELIVERY_SERVICE, { send: async (_to: unknown, text: string) => void sent.push(text) })
    },
  })
  const tool = (name: string) => t.kernel.registries.tools.get(name) as ToolDefinition | undefined
  const command = (name: string) => t.kernel.registries.commands.get(name) as CommandDefinition | undefined

  before(async () => {
    model = await startScriptedModel()
    t = await createTestKernel({
      home: makeTempHome(),
      builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'mcp'],
      config: { mcp_servers: { ev: { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] }, fx: { command: process.execPath, args: [FIXTURE, '--grow'] } } },
      env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url },
      extensions: [fakeDelivery],
    })
    await t.kernel.start('chat')
    await until('the bridged tools', () => tool('mcp__ev__echo') && tool('mcp__fx__grow') && command('ev-args-prompt'))
  })
  after(async () => {
    await t.close()
    await model.close()
    rmSync(t.home, { recursive: true, force: true })
  })

  it('progress notifications reach the run as tool.progress events', async () => {
    model.enqueue({ toolCalls: [{ id: 'long', name: 'mcp__ev__trigger-long-running-operation', arguments: { duration: 1, steps: 2 } }] }, { text: 'done' })
    const events: RunEvent[] = []
    const result = await t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'go', onEvent: (e) => void events.push(e) })
    assert.equal(result.answer, 'done')
    const progress = events.filter((e) => e.type === 'tool.progress').map((e) => (e as { text: string }).text)
    assert.ok(progress.includes('(1/2)'), JSON.stringify(progress))
  })

  it('elicitation: the form reaches the surface prompt as fields; accepted answers go back to the server', async () => {
    const asked: ElicitationRequest[] = []
    const elicitationPrompt: ElicitationPrompt = async (request) => {
      asked.push(request)
      const content: Record<string, ElicitationValue> = {}
      for (const field of request.fields) {
        const parsed = parseElicitationValue(field, field.name === 'name' ? 'Ada Lovelace' : '')
        if ('value' in parsed && parsed.value !== undefined) content[field.name] = parsed.value
      }
      return { action: 'accept', content }
    }
    model.enqueue({ toolCalls: [{ id: 'ask', name: 'mcp__ev__trigger-elicitation-request', arguments: {} }] }, { text: 'asked' })
    const result = await t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'ask me', extra: { elicitationPrompt } })
    assert.equal(result.answer, 'asked')
    assert.equal(asked[0]!.from, 'MCP server "ev"')
    const byName = new Map(asked[0]!.fields.map((f) => [f.name, f]))
    assert.deepEqual(byName.get('name'), { name: 'name', title: 'String', description: 'Your full, legal name', type: 'string', required: true })
    assert.deepEqual(byName.get('titledSingleSelectEnum')!.choices![1], { value: 'hero-2', label: 'Green Lantern' })
    assert.deepEqual(byName.get('legacyTitledEnum')!.choices![0], { value: 'pet-1', label: 'Cats' })
    assert.equal(byName.get('untitledMultipleSelectEnum')!.type, 'array')
    const chat = model.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body.messages
    const toolText = chat.find((m: any) => m.role === 'tool' && m.tool_call_id === 'ask').content
    assert.match(toolText, /accept/i)
    assert.match(toolText, /Ada Lovelace/)
  })

  it('elicitation from a messaging chat: asked there through delivery, answered by the same user\'s next messages', async () => {
    const source = { platform: 'telegram', chatId: 'c1', userId: 'u1' }
    sent.length = 0
    model.enqueue({ toolCalls: [{ id: 'chat-ask', name: 'mcp__ev__trigger-elicitation-request', arguments: {} }] }, { text: 'asked in chat' })
    const running = t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'ask me', source })
    const inbound = (text: string, from = source) => t.kernel.hooks.inboundMessage.promise({ source: from, text, receivedAt: Date.now() })
    await until('the first question', () => sent.find((m) => /MCP server "ev" asks: Please provide inputs[\s\S]*String — Your full, legal name:/.test(m)))
    // Someone else in the chat does not answer it; their message goes on to the gateway.
    assert.equal(await inbound('I am not the one asked', { ...source, userId: 'u2' }), undefined)
    assert.deepEqual(await inbound('Grace Hopper'), { handled: true, reason: 'answer to an MCP question' })
    for (let i = 0; i < 30 && !sent.includes('sent'); i++) {
      const asked = sent.length
      assert.deepEqual(await inbound('-'), { handled: true, reason: 'answer to an MCP question' })
      await until('the next question', () => sent.length > asked || undefined)
    }
    const result = await running
    assert.equal(result.answer, 'asked in chat')
    const chat = model.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body.messages
    assert.match(chat.find((m: any) => m.role === 'tool' && m.tool_call_id === 'chat-ask').content, /Grace Hopper/)
    assert.equal(await inbound('hello again'), undefined, 'no form waits any more')
  })

  it('sampling from a messaging chat: asked there; yes lets the model answer, anything else refuses', async () => {
    const source = { platform: 'telegram', chatId: 'c2', userId: 'u1' }
    const inbound = (text: string) => t.kernel.hooks.inboundMessage.promise({ source, text, receivedAt: Date.now() })
    const runtime = t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE)
    for (const [reply, expected] of [['no', /did not allow sampling: denied in the chat/], ['yes', /words sampled in the chat/]] as const) {
      sent.length = 0
      model.enqueue({ toolCalls: [{ id: `s-${reply}`, name: 'mcp__ev__trigger-sampling-request', arguments: { prompt: 'say hi' } }] }, ...(reply === 'yes' ? [{ text: 'words sampled in the chat' }] : []), { text: 'done' })
      const running = runtime.run({ input: 'sample', source })
      await until('the question', () => sent.find((m) => /MCP server "ev" asks: may it use the model to answer this\? "Resource trigger-sampling-request context: say hi"/.test(m)))
      assert.deepEqual(await inbound(reply), { handled: true, reason: 'answer to an MCP question' })
      assert.equal((await running).answer, 'done')
      const chat = model.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body.messages
      assert.match(chat.find((m: any) => m.role === 'tool' && m.tool_call_id === `s-${reply}`).content, expected)
    }
  })

  it('a prompt is a slash command: arguments checked, its text queued in the conversation', async () => {
    const queued: string[] = []
    const replies: string[] = []
    const chat = { queue: (text: string) => void queued.push(text) } as unknown as ChatConversation
    const ctx = (args: string) => ({ args, invokedAs: 'ev-args-prompt', surface: 'cli' as const, reply: (text: string) => void replies.push(text), chat })
    await assert.rejects(async () => command('ev-args-prompt')!.slash!(ctx('')), /missing city/)
    await assert.rejects(async () => command('ev-args-prompt')!.slash!(ctx('town=Oslo')), /unknown argument town/)
    await command('ev-args-prompt')!.slash!(ctx('city=Paris state="Ile de France"'))
    assert.deepEqual(queued, ["What's weather in Paris, Ile de France?"])
    assert.equal(command('ev-args-prompt')!.category, 'MCP prompts')
    // Completions: a missing argument is named with the server's suggestions, narrowed by the others.
    await assert.rejects(async () => command('ev-completable-prompt')!.slash!(ctx('')), /missing department, name \(give name=value\); department could be: Engineering, Sales, Marketing, Support/)
    await assert.rejects(async () => command('ev-completable-prompt')!.slash!(ctx('department=Sales')), /missing name .*; name could be: David, Eve, Frank/)
  })

  it('a list-changed notification brings the new tool in (cache rewritten, extension reloaded, the connection kept)', async () => {
    assert.equal(tool('mcp__fx__sprout'), undefined)
    assert.equal(await tool('mcp__fx__grow')!.execute({ input: { name: 'sprout' }, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: t.home } }), 'added sprout')
    await until('the grown tool', () => tool('mcp__fx__sprout'))
    // The tool lives only in this server process: calling it proves the reload kept the connection.
    assert.equal(await tool('mcp__fx__sprout')!.execute({ input: {}, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: t.home } }), 'extra: sprout')
  })
})
