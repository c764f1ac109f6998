// `agent mcp configure`, streamable-HTTP servers, a server that cannot start, and bad input, with the
// real CLI against real MCP servers built on the official SDK.

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

describe('agent mcp (CLI: configure, HTTP, failures)', () => {
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

  it('reports a server that cannot start, with its stderr, and exits 1', async () => {
    const add = await agent('mcp', 'add', 'broken', '--', process.execPath, SERVER, '--fail-start')
    assert.equal(add.code, 0)
    assert.match(add.stderr, /warning: broken could not be reached: .*refusing to start/)
    const test = await agent('mcp', 'test', 'broken')
    assert.equal(test.code, 1)
    assert.match(test.stderr, /broken: .*fixture: refusing to start/)
  })

  it('gives up on a server that never answers after connect_timeout', async () => {
    const add = await agent('mcp', 'add', 'hang', '--connect-timeout', '1', '--no-test', '--', process.execPath, '-e', 'setInterval(() => {}, 1000)')
    assert.equal(add.code, 0, add.stderr)
    const test = await agent('mcp', 'test', 'hang')
    assert.equal(test.code, 1)
    assert.match(test.stderr, /hang: MCP server "hang" could not be started: no answer within 1 s/)
  })

  it('refuses bad input and changes nothing', async () => {
    const before = readFileSync(join(home, 'config.yaml'), 'utf8')
    for (const args of [
      ['mcp', 'add', 'nothing'],
      ['mcp', 'add', 'echo', '--', 'node'],
      ['mcp', 'add', 'bad name!', '--', 'node'],
      ['mcp', 'add', 'both', '--url', http.url, '--', 'node'],
      ['mcp', 'add', 'ftp', '--url', 'ftp://example.com/mcp'],
      ['mcp', 'add', 'env', '--env', 'NOEQUALS', '--', 'node'],
      ['mcp', 'test', 'missing'],
      ['mcp', 'remove', 'missing'],
      ['mcp', 'configure', 'missing', '--disable'],
    ]) {
      const run = await agent(...args)
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
      assert.match(run.stderr, /^agent: /)
      assert.doesNotMatch(run.stderr, /\n\s+at /)
    }
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), before)
  })
})
