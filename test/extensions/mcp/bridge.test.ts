// Bridged MCP tools in a running kernel with the real runtime and a scripted model: tools appear
// after the first connect (cache + reload), the agent calls one, a dying server is reported and
// restarted, a slow call times out, an error result is an error, and /reload-mcp picks up a changed
// tool list.

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { RUNTIME_SERVICE, type AgentRuntime, type CommandDefinition, type ToolDefinition } from 'agent/sdk'
import { createTestKernel, makeTempHome, startScriptedModel, type ScriptedModelServer, type TestKernel } from 'agent/sdk/testing'
import { untilValue as until } from '../../helpers/until.ts'

const SERVER = fileURLToPath(new URL('../../fixtures/mcp/stdio-server.mjs', import.meta.url))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('MCP tools bridged into a running agent', () => {
  let t: TestKernel
  let model: ScriptedModelServer
  let extraTools: string
  const logs: string[] = []
  const tool = (name: string) => t.kernel.registries.tools.get(name) as ToolDefinition | undefined
  const call = (name: string, input: unknown) => tool(name)!.execute({ input, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: t.home } })

  before(async () => {
    model = await startScriptedModel()
    const home = makeTempHome()
    extraTools = join(home, 'extra-tools.txt')
    writeFileSync(extraTools, '')
    t = await createTestKernel({
      home,
      builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'mcp'],
      config: { mcp_servers: { fx: { command: process.execPath, args: [SERVER, '--extra-tools-file', extraTools], timeout: 2 } } },
      env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url },
      kernel: { logLevel: 'info', logSink: { write: (line) => void logs.push(line) } },
    })
    for (const info of t.kernel.extensions()) assert.notEqual(info.state, 'failed', `${info.name}: ${info.reason}`)
  })
  after(async () => {
    await t.close()
    await model.close()
    rmSync(t.home, { recursive: true, force: true })
  })

  it('registers nothing before the first connect, then the tools after ready (cache written, extension reloaded)', async () => {
    assert.equal(tool('mcp__fx__echo'), undefined)
    await t.kernel.start('chat')
    await until('the bridged tools', () => tool('mcp__fx__echo'))
    assert.equal(tool('mcp__fx__echo')!.toolset, 'mcp-fx')
    assert.deepEqual(tool('mcp__fx__add')!.parameters.required, ['a', 'b'])
  })

  it('the agent calls the bridged tool through the runtime', async () => {
    model.enqueue({ toolCalls: [{ name: 'mcp__fx__add', arguments: { a: 2, b: 40 } }] }, { text: 'It is 42.' })
    const runtime = t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE)
    const result = await runtime.run({ input: 'add 2 and 40' })
    assert.equal(result.answer, 'It is 42.')
    assert.deepEqual(result.toolTrace.map((e) => [e.tool, e.status]), [['mcp__fx__add', 'ok']])
    const chat = model.requests.filter((r) => r.path.endsWith('/chat/completions'))
    const toolMessage = chat.at(-1)!.body.messages.find((m: any) => m.role === 'tool')
    assert.equal(toolMessage.content, '42')
  })

  it('an error result is an error; a slow call times out', async () => {
    await assert.rejects(async () => call('mcp__fx__fail', {}), /something went wrong/)
    await assert.rejects(async () => call('mcp__fx__slow', { ms: 10_000 }), /MCP tool "slow" on server "fx" timed out after 2 s/)
    assert.equal(await call('mcp__fx__echo', { text: 'still alive' }), 'echo: still alive')
  })

  it('a server that dies is reported, and restarted on a later call', async () => {
    assert.equal(await call('mcp__fx__crash', {}), 'bye')
    await until('the exit report', () => logs.find((l) => /MCP server "fx" stopped: the server exited \(stderr: fixture crashing on purpose\)/.test(l)))
    await assert.rejects(async () => call('mcp__fx__echo', { text: 'x' }), /MCP server "fx" is not running .*\/reload-mcp restarts it/)
    await sleep(2100)
    assert.equal(await call('mcp__fx__echo', { text: 'back' }), 'echo: back')
    assert.ok(logs.some((l) => /MCP server "fx" restarted/.test(l)))
  })

  it('/reload-mcp reconnects and picks up a changed tool list', async () => {
    writeFileSync(extraTools, 'extra_one\n')
    const replies: string[] = []
    const command = t.kernel.registries.commands.get('reload-mcp') as CommandDefinition
    await command.slash!({ args: '', invokedAs: 'reload-mcp', surface: 'cli', reply: (text) => void replies.push(text) })
    assert.match(replies.join('\n'), /fx: 7 tools\nthe tool list changed: reloading/)
    await until('the new tool', () => tool('mcp__fx__extra_one'))
    assert.equal(await call('mcp__fx__extra_one', {}), 'extra: extra_one')
    // Unchanged list: no reload.
    const again: string[] = []
    await (t.kernel.registries.commands.get('reload-mcp') as CommandDefinition).slash!({ args: '', invokedAs: 'reload-mcp', surface: 'cli', reply: (text) => void again.push(text) })
    assert.equal(again.join('\n'), 'fx: 7 tools')
  })
})
