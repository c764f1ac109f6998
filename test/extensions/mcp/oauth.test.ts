// OAuth for a remote MCP server through the SDK's auth support, against a loopback authorization
// server: without tokens a connect fails saying to log in; `agent mcp login` prints the
// authorization address, receives the code on its loopback callback and stores the tokens (0600,
// nowhere else); then `agent chat -q` calls the server's tool with them; logout forgets them.

import assert from 'node:assert/strict'
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/mcp/oauth-server.ts'
import { jsonOf, runAgent, startAgent } from '../../helpers/agent-process.ts'

describe('agent mcp login (OAuth) against a loopback authorization server', () => {
  let home: string
  let model: ScriptedModelServer
  let server: OAuthMcpServer
  const env = () => ({ AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url })
  const agent = (...args: string[]) => runAgent(args, { home, env: env(), logLevel: 'error', timeoutMs: 60_000 })
  const authFile = () => join(home, 'mcp', 'auth', 'secure.json')

  before(async () => {
    home = makeTempHome()
    model = await startScriptedModel()
    server = await startOAuthMcpServer()
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, mcp_servers: { secure: { url: server.url }, local: { command: process.execPath, args: ['-e', ''] } } }))
  })
  after(async () => {
    await server.close()
    await model.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('login refuses a stdio server and an unknown name', async () => {
    const stdio = await agent('mcp', 'login', 'local')
    assert.equal(stdio.code, 2)
    assert.match(stdio.stderr, /"local" is a stdio server; OAuth applies to remote/)
    const unknown = await agent('mcp', 'login', 'nosuch')
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /no MCP server named "nosuch"/)
  })

  it('without tokens the server cannot be reached, and the error says to log in', async () => {
    const run = await agent('mcp', 'test', 'secure')
    assert.equal(run.code, 1)
    assert.match(run.stderr, /secure: .*needs authorization: run agent mcp login secure/)
    assert.equal(server.issued(), 0)
  })

  it('login: the printed address is opened, the code comes back to the loopback callback, tokens are stored 0600', async () => {
    const login = startAgent(['mcp', 'login', 'secure', '--timeout', '30'], { home, env: env(), logLevel: 'error' })
    const exited = new Promise<number | null>((resolve) => login.child.once('close', (code) => resolve(code)))
    try {
      const [address] = await login.waitFor(/http:\/\/127\.0\.0\.1:\d+\/authorize\S+/, 30_000)
      // The "browser": the demo authorization server approves at once and redirects to our callback.
      const page = await fetch(address, { redirect: 'follow', signal: AbortSignal.timeout(10_000) })
      assert.equal(page.status, 200)
      assert.match(await page.text(), /Authorized/)
      await login.waitFor(/secure: connected in \d+ ms \(oauth-fixture 1\.0\.0\), 1 tool/, 30_000)
      assert.match(login.stdout(), /authorized with "secure"/)
      assert.equal(await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000, 'still running'))]), 0)
    } catch (error) {
      throw new Error(`${(error as Error).message}\nstdout: ${login.stdout()}\nstderr: ${login.stderr()}`)
    } finally {
      await login.stop()
    }
    assert.equal(server.issued(), 1)
    assert.equal(statSync(authFile()).mode & 0o777, 0o600)
    const stored = JSON.parse(readFileSync(authFile(), 'utf8'))
    assert.ok(stored.tokens.access_token)
    assert.doesNotMatch(readFileSync(join(home, 'config.yaml'), 'utf8'), new RegExp(stored.tokens.access_token))
    assert.ok(!existsSync(join(home, '.env')) || !readFileSync(join(home, '.env'), 'utf8').includes(stored.tokens.access_token))
  })

  it('the tokens are bound to the server URL: the same name pointed elsewhere gets none of them', async () => {
    const seen: string[] = []
    const other = createServer((req, res) => {
      seen.push(String(req.headers.authorization ?? ''))
      res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const config = YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8'))
    const original = config.mcp_servers.secure.url
    config.mcp_servers.secure.url = `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`
    writeFileSync(join(home, 'config.yaml'), YAML.stringify(config))
    try {
      assert.equal((await agent('mcp', 'test', 'secure')).code, 1)
      assert.ok(seen.length > 0 && seen.every((h) => h === ''), JSON.stringify(seen))
    } finally {
      config.mcp_servers.secure.url = original
      writeFileSync(join(home, 'config.yaml'), YAML.stringify(config))
      other.closeAllConnections()
      await new Promise((resolve) => other.close(resolve))
    }
  })

  it('chat -q calls the tool with the stored token; logout forgets it', async () => {
    model.enqueue({ toolCalls: [{ id: 'who', name: 'mcp__secure__whoami', arguments: {} }] }, { text: 'Known.' })
    const before = model.requests.length
    const run = await agent('chat', '-q', 'who am I', '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(jsonOf(run).answer, 'Known.')
    const messages = model.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'))[1]!.body.messages
    assert.match(messages.find((m: any) => m.role === 'tool').content, /^client [\w-]+$/)
    assert.equal((await agent('mcp', 'logout', 'secure')).code, 0)
    assert.ok(!existsSync(authFile()))
    assert.equal((await agent('mcp', 'test', 'secure')).code, 1)
  })
})
