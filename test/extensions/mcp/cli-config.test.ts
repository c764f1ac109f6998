// `agent mcp configure` and streamable-HTTP servers, with the real CLI against real MCP servers built
// on the official SDK (failures and bad input: cli-failures.test.ts).

import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { startMcpHttpServer, type McpHttpServer } from '../../fixtures/mcp/http-server.ts'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'

const SERVER = fileURLToPath(new URL('../../fixtures/mcp/stdio-server.mjs', import.meta.url))

describe('agent mcp (CLI: configure, HTTP)', () => {
  let home: string
  let http: McpHttpServer
  let model: ScriptedModelServer
  const agent = (...args: string[]) => runAgent(args, { home, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }, logLevel: 'error' })
  const config = () => YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8'))
  const dotenv = () => readFileSync(join(home, '.env'), 'utf8')

  before(async () => {
    home = makeTempHome()
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
    http = await startMcpHttpServer({ token: 'http-token-1234' })
    model = await startScriptedModel()
  })
  after(async () => {
    await http.close()
    await model.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('adds a stdio server to configure', async () => {
    const run = await agent('mcp', 'add', 'echo', '--', process.execPath, SERVER)
    assert.equal(run.code, 0, run.stderr)
  })

  it('configures filters, timeouts and the enabled switch', async () => {
    const run = await agent('mcp', 'configure', 'echo', '--exclude', 'crash', '--exclude', 'slow', '--timeout', '5', '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(config().mcp_servers.echo.tools, { exclude: ['crash', 'slow'] })
    assert.equal(config().mcp_servers.echo.timeout, 5)
    const tools = jsonOf(await agent('tools', 'list', '--json')).map((t: any) => t.name).filter((n: string) => n.startsWith('mcp__'))
    assert.deepEqual(tools.sort(), ['mcp__echo__add', 'mcp__echo__echo', 'mcp__echo__env', 'mcp__echo__fail'])
    assert.equal((await agent('mcp', 'configure', 'echo', '--disable')).code, 0)
    assert.deepEqual(jsonOf(await agent('tools', 'list', '--json')).filter((t: any) => t.name.startsWith('mcp__')), [])
    assert.equal((await agent('mcp', 'configure', 'echo', '--enable', '--clear-filters')).code, 0)
    assert.equal(config().mcp_servers.echo.enabled, undefined)
    const bad = await agent('mcp', 'configure', 'echo', '--timeout', '-3')
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /"timeout" must be a positive number of seconds/)
    assert.equal(config().mcp_servers.echo.timeout, 5)
  })

  it('--unset-env removes the variable and the secret stored for it in .env; an unknown name changes nothing', async () => {
    assert.equal((await agent('mcp', 'configure', 'echo', '--env', 'FIXTURE_API_KEY=sk-unset-me-123', '--env', 'PLAIN=x')).code, 0)
    assert.match(dotenv(), /^MCP_ECHO_FIXTURE_API_KEY=sk-unset-me-123$/m)
    const unknown = await agent('mcp', 'configure', 'echo', '--unset-env', 'NOPE')
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /has no env variable "NOPE"/)
    assert.match(dotenv(), /MCP_ECHO_FIXTURE_API_KEY/)
    const run = await agent('mcp', 'configure', 'echo', '--unset-env', 'FIXTURE_API_KEY')
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(config().mcp_servers.echo.env, { PLAIN: 'x' })
    assert.doesNotMatch(dotenv(), /sk-unset-me-123|MCP_ECHO_FIXTURE_API_KEY/)
    // A value the user wrote by hand (not one of ours) is left in .env.
    writeFileSync(join(home, '.env'), `${dotenv()}OTHER_TOKEN=keep-me\n`)
    const config2 = config()
    config2.mcp_servers.echo.env.TOKEN = '${OTHER_TOKEN}'
    writeFileSync(join(home, 'config.yaml'), YAML.stringify(config2))
    assert.equal((await agent('mcp', 'configure', 'echo', '--unset-env', 'TOKEN', '--unset-env', 'PLAIN')).code, 0)
    assert.match(dotenv(), /^OTHER_TOKEN=keep-me$/m)
    assert.equal(config().mcp_servers.echo.env, undefined)
  })

  it('adds a streamable-HTTP server with its auth header kept in .env', async () => {
    const run = await agent('mcp', 'add', 'remote', '--url', http.url, '--header', 'Authorization: Bearer http-token-1234', '--json')
    assert.equal(run.code, 0, run.stderr)
    const doc = jsonOf(run)
    assert.equal(doc.test.ok, true)
    assert.equal(doc.test.server_info.name, 'fixture-http')
    assert.equal(config().mcp_servers.remote.headers.Authorization, '${MCP_REMOTE_HEADER_AUTHORIZATION}')
    assert.match(dotenv(), /^MCP_REMOTE_HEADER_AUTHORIZATION="?Bearer http-token-1234"?$/m)
    assert.ok(http.authorizations.includes('Bearer http-token-1234'))
    const test = await agent('mcp', 'test', 'remote')
    assert.equal(test.code, 0, test.stderr)
    assert.match(test.stdout, /remote: connected .*\(fixture-http 2\.0\.0\), 5 tools/)
  })
})
