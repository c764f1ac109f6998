// The editor's `mcpServers` in `agent acp`: the reference server-everything over stdio and over
// Streamable HTTP (a child on a loopback port), connected for that session only and called by the
// scripted model; SSE entries refused as the capabilities say.

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { EVERYTHING_BIN, startEverythingHttp, type EverythingHttp } from '../mcp/everything-server.ts'
import { acpModelEnv, type AcpProcess, initialized, projectDir, startAcp } from './acp-client.ts'

const toolResults = (body: any) => (body.messages as any[]).filter((m) => m.role === 'tool').map((m) => String(m.content))
const offered = (body: any) => ((body.tools ?? []) as any[]).map((t) => t.function?.name ?? t.name)

describe("agent acp with the editor's MCP servers", () => {
  let home: string
  let cwd: string
  let model: ScriptedModelServer
  let http: EverythingHttp
  let proc: AcpProcess

  before(async () => {
    home = makeTempHome('agent-acp-mcp-')
    cwd = projectDir('agent-acp-mcp-project-')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
    model = await startScriptedModel()
    http = await startEverythingHttp('streamableHttp')
    proc = startAcp({ home, cwd, env: acpModelEnv(model, 'sk-acp-mcp-key-000000') })
  })
  after(async () => {
    await proc?.kill()
    await http?.kill()
    await model?.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(cwd, { recursive: true, force: true })
  })

  it('declares Streamable HTTP but not SSE, and refuses an SSE server', async () => {
    const init = await initialized(proc)
    assert.deepEqual(init.agentCapabilities?.mcpCapabilities, { http: true, sse: false })
    await assert.rejects(
      proc.agent.request('session/new', { cwd, mcpServers: [{ type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] }] }),
      (error: any) => error.code === -32602 && /SSE is not supported/.test(error.message),
    )
    await assert.rejects(
      proc.agent.request('session/new', { cwd, mcpServers: [{ name: 'sneaky', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], env: [{ name: 'TOKEN', value: '${OPENAI_API_KEY}' }] }] }),
      (error: any) => error.code === -32602 && /references are not accepted/.test(error.message),
    )
  })

  it("uses a stdio and an HTTP server for that session's turns only", async () => {
    const { sessionId } = await proc.agent.request('session/new', {
      cwd,
      mcpServers: [
        { name: 'everything', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], env: [] },
        { type: 'http', name: 'remote everything', url: http.url, headers: [] },
      ],
    })
    model.enqueue(
      { toolCalls: [{ id: 'call_echo', name: 'mcp__everything__echo', arguments: { message: 'hello over stdio' } }, { id: 'call_sum', name: 'mcp__remote_everything__get-sum', arguments: { a: 2, b: 40 } }] },
      { text: 'both answered' },
    )
    const response = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'use the servers' }] })
    assert.equal(response.stopReason, 'end_turn')
    const first = model.requests.at(-2)!.body
    assert.ok(offered(first).includes('mcp__everything__echo') && offered(first).includes('mcp__remote_everything__get-sum'), offered(first).join(', '))
    const results = toolResults(model.requests.at(-1)!.body)
    assert.match(results[0]!, /hello over stdio/)
    assert.match(results[1]!, /42/)

    const other = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ text: 'no servers here' })
    await proc.agent.request('session/prompt', { sessionId: other.sessionId, prompt: [{ type: 'text', text: 'anything?' }] })
    assert.ok(!offered(model.requests.at(-1)!.body).some((n: string) => n.startsWith('mcp__')), 'another session does not see them')

    await proc.agent.request('session/close', { sessionId })
  })

  it('ends the servers and exits 0 when the editor closes stdin', async () => {
    await proc.agent.request('session/new', { cwd, mcpServers: [{ name: 'everything', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], env: [] }] })
    proc.child.stdin.end()
    assert.equal(await proc.exited(10_000), 0)
  })
})
