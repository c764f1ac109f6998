// `agent mcp`: a server that cannot start, one that never answers, and bad input, with the real CLI
// (split from cli-config.test.ts so each file stays well inside the per-file time bound under load).

import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { startMcpHttpServer, type McpHttpServer } from '../../fixtures/mcp/http-server.ts'
import { runAgent } from '../../helpers/agent-process.ts'

const SERVER = fileURLToPath(new URL('../../fixtures/mcp/stdio-server.mjs', import.meta.url))

describe('agent mcp (CLI: failures and bad input)', () => {
  let home: string
  let http: McpHttpServer
  let model: ScriptedModelServer
  const agent = (...args: string[]) => runAgent(args, { home, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }, logLevel: 'error' })

  before(async () => {
    home = makeTempHome()
    // A server named echo already exists: adding another by that name is bad input.
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, mcp_servers: { echo: { command: process.execPath, args: [SERVER] } } }))
    http = await startMcpHttpServer({ token: 'http-token-1234' })
    model = await startScriptedModel()
  })
  after(async () => {
    await http.close()
    await model.close()
    rmSync(home, { recursive: true, force: true })
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
