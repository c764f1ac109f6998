// `agent mcp …` with the real CLI against real MCP servers (a stdio server and a streamable-HTTP one
// built on the official SDK), and `agent chat -q` calling a bridged tool through the runtime.

import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'

const SERVER = fileURLToPath(new URL('../../fixtures/mcp/stdio-server.mjs', import.meta.url))

describe('agent mcp (CLI)', () => {
  let home: string
  let model: ScriptedModelServer
  const agent = (...args: string[]) => runAgent(args, { home, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }, logLevel: 'error' })
  const config = () => YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8'))
  const dotenv = () => readFileSync(join(home, '.env'), 'utf8')

  before(async () => {
    home = makeTempHome()
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
    model = await startScriptedModel()
  })
  after(async () => {
    await model.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('adds a stdio server, stores secret env values in .env, connects and caches its tools', async () => {
    const run = await agent('mcp', 'add', 'echo', '--env', 'FIXTURE_API_KEY=sk-fixture-secret-1', '--env', 'PLAIN=hello', '--', process.execPath, SERVER)
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /added MCP server "echo" \(stdio\)/)
    assert.match(run.stdout, /echo: connected in \d+ ms \(fixture 1\.2\.3\), 6 tools/)
    assert.match(run.stdout, /mcp__echo__echo {2}Echo the text back/)
    const entry = config().mcp_servers.echo
    assert.deepEqual(entry, { command: process.execPath, args: [SERVER], env: { FIXTURE_API_KEY: '${MCP_ECHO_FIXTURE_API_KEY}', PLAIN: 'hello' } })
    assert.match(dotenv(), /^MCP_ECHO_FIXTURE_API_KEY=sk-fixture-secret-1$/m)
    const cache = JSON.parse(readFileSync(join(home, 'mcp', 'tools', 'echo.json'), 'utf8'))
    assert.deepEqual(cache.tools.map((t: any) => t.name).sort(), ['add', 'crash', 'echo', 'env', 'fail', 'slow'])
  })

  it('lists servers and shows the bridged tools in agent tools list', async () => {
    const list = jsonOf(await agent('mcp', 'list', '--json'))
    assert.equal(list.length, 1)
    assert.equal(list[0].name, 'echo')
    assert.equal(list[0].transport, 'stdio')
    assert.equal(list[0].enabled, true)
    assert.equal(list[0].tools.length, 6)
    const tools = jsonOf(await agent('tools', 'list', '--json'))
    const echo = tools.find((t: any) => t.name === 'mcp__echo__echo')
    assert.ok(echo, JSON.stringify(tools.map((t: any) => t.name)))
    assert.equal(echo.toolset, 'mcp-echo')
    assert.equal(echo.owner, 'mcp')
  })

  it('the agent calls a bridged tool (agent chat -q, scripted model); the secret env reaches the server', async () => {
    model.enqueue(
      {
        toolCalls: [
          { name: 'mcp__echo__echo', arguments: { text: 'from the model' } },
          { name: 'mcp__echo__env', arguments: { name: 'FIXTURE_API_KEY' } },
          { name: 'mcp__echo__env', arguments: { name: 'PLAIN' } },
        ],
      },
      { text: 'The server answered.' },
    )
    const before = model.requests.length
    const run = await agent('chat', '-q', 'use the echo tool', '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(jsonOf(run).answer, 'The server answered.')
    const requests = model.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'))
    const offered = requests[0]!.body.tools.map((t: any) => t.function.name)
    assert.ok(offered.includes('mcp__echo__echo'), offered.join(','))
    const toolMessages = requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content)
    assert.ok(toolMessages.includes('echo: from the model'), JSON.stringify(toolMessages))
    // The secret was expanded from .env for the server process (the runtime redacts it in the
    // result: it is a secret's value), and never written into config.yaml.
    assert.ok(toolMessages.includes('hello'), JSON.stringify(toolMessages))
    assert.ok(toolMessages.includes('[REDACTED:MCP_ECHO_FIXTURE_API_KEY]'), JSON.stringify(toolMessages))
    assert.ok(!toolMessages.includes('(unset)'), JSON.stringify(toolMessages))
    assert.doesNotMatch(readFileSync(join(home, 'config.yaml'), 'utf8'), /sk-fixture-secret-1/)
  })

  it('removes a server with its stored secrets and cached tools', async () => {
    const run = await agent('mcp', 'remove', 'echo')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(config().mcp_servers.echo, undefined)
    assert.doesNotMatch(dotenv(), /MCP_ECHO_/)
    assert.throws(() => readFileSync(join(home, 'mcp', 'tools', 'echo.json')))
  })
})
