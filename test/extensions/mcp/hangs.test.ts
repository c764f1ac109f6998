// `agent chat -q` exits promptly whatever its MCP servers do: six servers never seen before (more
// than the four connected at once), a stdio server that never answers, an HTTP server that never
// answers; and with cached tool lists a server is not started at all unless the model uses it. The
// gateway, which connects every server at ready, closes promptly too.
// The bound is generous (the process starting on a loaded machine); the old behaviour waited the
// 30 s connect timeout or never exited.

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { createTestKernel, makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'

const SERVER = fileURLToPath(new URL('../../fixtures/mcp/stdio-server.mjs', import.meta.url))
// Under the 30 s default connect timeout, with room for a loaded machine.
const BOUND_MS = 25_000
// A stdio "server" that starts (leaving a mark) and never says anything.
const MUTE = "import { appendFileSync } from 'node:fs'; appendFileSync(process.argv[1], 'started\\n'); setInterval(() => {}, 1000)"

describe('agent chat -q with MCP servers that hang', () => {
  let home: string
  let model: ScriptedModelServer
  let silent: Server
  let marker: string
  const agent = (...args: string[]) => runAgent(args, { home, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }, logLevel: 'error', timeoutMs: BOUND_MS })

  before(async () => {
    home = makeTempHome()
    marker = join(home, 'mute-started.txt')
    model = await startScriptedModel()
    // Accepts every request and never answers it.
    silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const servers: Record<string, unknown> = {}
    for (let i = 1; i <= 6; i++) servers[`fx${i}`] = { command: process.execPath, args: [SERVER] }
    servers.mute = { command: process.execPath, args: ['--input-type=module', '-e', MUTE, marker] }
    servers.deaf = { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp` }
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, mcp_servers: servers }))
  })
  after(async () => {
    silent.closeAllConnections()
    await new Promise((resolve) => silent.close(resolve))
    await model.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('eight servers never seen (six fine, two that never answer): the answer is printed and the process exits', async () => {
    model.enqueue({ text: 'Answered.' })
    const run = await agent('chat', '-q', 'hello', '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(jsonOf(run).answer, 'Answered.')
  })

  it('with cached tool lists no server starts unless the model uses one; a used one that never answers fails the call, not the run', async () => {
    const tools = join(home, 'mcp', 'tools')
    mkdirSync(tools, { recursive: true })
    const cache = (server: string, name: string) => writeFileSync(join(tools, `${server}.json`), JSON.stringify({ server, updated_at: new Date().toISOString(), tools: [{ name, inputSchema: { type: 'object' } }] }))
    for (let i = 1; i <= 6; i++) cache(`fx${i}`, 'echo')
    cache('mute', 'quiet')
    cache('deaf', 'nothing')
    rmSync(marker, { force: true })
    model.enqueue({ text: 'No tools needed.' })
    const first = await agent('chat', '-q', 'hello', '--json')
    assert.equal(first.code, 0, first.stderr)
    assert.equal(jsonOf(first).answer, 'No tools needed.')
    assert.ok(!existsSync(marker), 'the mute server was not started')
    // Using the HTTP server that never answers: the call waits its connect_timeout (here 1 s), the run goes on.
    const config = YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8'))
    config.mcp_servers.deaf.connect_timeout = 1
    writeFileSync(join(home, 'config.yaml'), YAML.stringify(config))
    model.enqueue({ toolCalls: [{ name: 'mcp__deaf__nothing', arguments: {} }] }, { text: 'The server did not answer.' })
    const before = model.requests.length
    const second = await agent('chat', '-q', 'use deaf', '--json')
    assert.equal(second.code, 0, second.stderr)
    assert.equal(jsonOf(second).answer, 'The server did not answer.')
    const toolMessage = model.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'))[1]!.body.messages.find((m: any) => m.role === 'tool')
    assert.match(toolMessage.content, /MCP server "deaf" could not be started: no answer within 1 s/)
  })
})

describe('the gateway connects every server at ready; shutting down cancels what is still connecting', () => {
  it('eight servers, two never answering: the kernel closes promptly and nothing is left running', async () => {
    const home = makeTempHome()
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const servers: Record<string, unknown> = {}
    for (let i = 1; i <= 6; i++) servers[`fx${i}`] = { command: process.execPath, args: [SERVER] }
    servers.mute = { command: process.execPath, args: ['--input-type=module', '-e', MUTE, join(home, 'mark.txt')] }
    servers.deaf = { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp` }
    const logs: string[] = []
    const t = await createTestKernel({ home, builtins: ['mcp'], config: { mcp_servers: servers }, kernel: { logLevel: 'info', logSink: { write: (line) => void logs.push(line) } } })
    try {
      await t.kernel.start('gateway')
      await new Promise((resolve) => setTimeout(resolve, 300))
    } finally {
      const closing = t.close().then(() => 'closed')
      assert.equal(await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, BOUND_MS, 'still closing'))]), 'closed')
      silent.closeAllConnections()
      await new Promise((resolve) => silent.close(resolve))
      rmSync(home, { recursive: true, force: true })
    }
    // Nothing was started after the shutdown began (the old probe started its fifth server then).
    assert.ok(!logs.some((l) => /MCP server "\w+" (restarted|reconnected)/.test(l)), logs.join('\n'))
  })
})
