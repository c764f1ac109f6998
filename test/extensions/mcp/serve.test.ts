// `agent mcp serve` answers the official SDK client, which spawns the real `node kernel/bin/agent.mjs
// mcp serve`: the agent's tools are listed and called, guards apply, bridged MCP tools stay out.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { hermeticEnv, makeTempHome } from 'agent/sdk/testing'
import { AGENT_BIN } from '../../helpers/agent-process.ts'

const text = (result: any) => (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('')

describe('agent mcp serve', () => {
  let home: string
  let client: Client
  let stderr = ''

  before(async () => {
    home = makeTempHome()
    writeFileSync(join(home, 'note.txt'), 'a note for the MCP client\n')
    // A user extension with a tool, and a configured MCP server whose cached tools must not be re-exported.
    mkdirSync(join(home, 'extensions', 'greeter'), { recursive: true })
    writeFileSync(
      join(home, 'extensions', 'greeter', 'index.ts'),
      `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'greeter', setup(api) {
  api.tools.register({ name: 'greet', description: 'Greet someone', parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    execute: ({ input, session }) => 'hello ' + input.who + ' from ' + session.source?.platform })
} })
`,
    )
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, mcp_servers: { other: { command: 'node', args: ['nothing.mjs'] } } }))
    mkdirSync(join(home, 'mcp', 'tools'), { recursive: true })
    writeFileSync(join(home, 'mcp', 'tools', 'other.json'), JSON.stringify({ server: 'other', updated_at: '', tools: [{ name: 'loop', inputSchema: { type: 'object' } }] }))

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [AGENT_BIN, 'mcp', 'serve'],
      env: hermeticEnv({ AGENT_LOG_LEVEL: 'warn' }, home) as Record<string, string>,
      cwd: home,
      stderr: 'pipe',
    })
    transport.stderr?.on('data', (d) => (stderr += d))
    client = new Client({ name: 'test-client', version: '1.0.0' })
    await client.connect(transport, { timeout: 30_000 })
  })
  after(async () => {
    await client?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('identifies itself and lists the agent tools, without bridged MCP tools', async () => {
    assert.equal(client.getServerVersion()?.name, 'agent')
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    for (const expected of ['greet', 'skills_list', 'skill_view', 'read_file']) assert.ok(names.includes(expected), `${expected} missing from ${names.join(', ')}`)
    assert.ok(!names.some((n) => n.startsWith('mcp__')), names.join(', '))
    const greet = tools.find((t) => t.name === 'greet')!
    assert.deepEqual(greet.inputSchema.required, ['who'])
    assert.match(stderr, /agent mcp serve: \d+ tools on stdio/)
  })

  it('calls tools: a user extension tool, skills_list and read_file in the working directory', async () => {
    assert.equal(text(await client.callTool({ name: 'greet', arguments: { who: 'client' } })), 'hello client from mcp')
    const skills = JSON.parse(text(await client.callTool({ name: 'skills_list', arguments: {} })))
    assert.ok(skills.skills.some((s: any) => s.name === 'plan'))
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'note.txt' } })
    assert.equal(read.isError ?? false, false, text(read))
    assert.match(text(read), /a note for the MCP client/)
  })

  it('reports errors as tool errors and keeps serving', async () => {
    const unknown = await client.callTool({ name: 'nope', arguments: {} })
    assert.equal(unknown.isError, true)
    assert.match(text(unknown), /unknown tool "nope"/)
    const missing = await client.callTool({ name: 'skill_view', arguments: { name: 'does-not-exist' } })
    assert.equal(missing.isError, true)
    assert.match(text(missing), /no skill named "does-not-exist"/)
    assert.equal(text(await client.callTool({ name: 'greet', arguments: { who: 'again' } })), 'hello again from mcp')
  })

  it('runs the beforeToolCall guards: a never-allowed command is blocked, not run', async () => {
    const blocked = await client.callTool({ name: 'terminal', arguments: { command: 'rm -rf /' } })
    assert.equal(blocked.isError, true)
    assert.match(text(blocked), /BLOCKED/)
  })
})
