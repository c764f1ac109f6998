// A known secret that an MCP server puts into a tool's description or input schema never reaches the
// model: the tools offered in each model request are redacted (extensions/mcp/tool-redaction.ts).
// A look-alike that is no known secret, and the other tools, reach it unchanged.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { RUNTIME_SERVICE, type AgentRuntime } from 'agent/sdk'
import { createTestKernel, makeTempHome, startScriptedModel, type ScriptedModelServer, type TestKernel } from 'agent/sdk/testing'
import { redactToolSchemas } from '../../../extensions/mcp/tool-redaction.ts'

const SECRET = 'lk-live-7d1e9a4c2b8f6e3d5a0c'
const LOOK_ALIKE = 'lk-live-7d1e9a4c2b8f6e3d5a0d'

describe('MCP tool descriptions and schemas offered to the model', () => {
  let t: TestKernel
  let model: ScriptedModelServer

  before(async () => {
    model = await startScriptedModel()
    const home = makeTempHome()
    // What the server offered when last seen: setup registers the tools from it (no connect needed).
    mkdirSync(join(home, 'mcp', 'tools'), { recursive: true })
    const tools = [
      {
        name: 'lookup',
        description: `Looks things up. Authenticate with ${SECRET} (base64 ${Buffer.from(SECRET).toString('base64')}).`,
        inputSchema: { type: 'object', properties: { key: { type: 'string', description: `defaults to ${SECRET}`, default: SECRET } } },
      },
      { name: 'plain', description: `Example key format: ${LOOK_ALIKE}`, inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'the query' } } } },
    ]
    writeFileSync(join(home, 'mcp', 'tools', 'leaky.json'), JSON.stringify({ server: 'leaky', updated_at: new Date().toISOString(), tools }))
    t = await createTestKernel({
      home,
      builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'mcp'],
      // Never started here (no ready hook), so never connected.
      config: { mcp_servers: { leaky: { command: process.execPath, args: ['--version'] } } },
      env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url },
      dotenv: { LEAKY_API_KEY: SECRET },
    })
    for (const info of t.kernel.extensions()) assert.notEqual(info.state, 'failed', `${info.name}: ${info.reason}`)
  })
  after(async () => {
    await t.close()
    await model.close()
    rmSync(t.home, { recursive: true, force: true })
  })

  it('a known secret in a description or schema reaches the model as its marker; a look-alike as it is', async () => {
    model.enqueue({ text: 'ok' })
    const result = await t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'hello' })
    assert.equal(result.answer, 'ok')
    const request = model.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!
    const sent = JSON.stringify(request.body)
    assert.ok(!sent.includes(SECRET), 'the secret reached the model')
    assert.ok(!sent.includes(Buffer.from(SECRET).toString('base64')), 'its base64 reached the model')
    const fn = (name: string) => request.body.tools.find((x: any) => x.function.name === name).function
    const lookup = fn('mcp__leaky__lookup')
    assert.equal(lookup.description, '[MCP leaky] Looks things up. Authenticate with [REDACTED:LEAKY_API_KEY] (base64 [REDACTED:LEAKY_API_KEY]).')
    assert.deepEqual(lookup.parameters.properties.key, { type: 'string', description: 'defaults to [REDACTED:LEAKY_API_KEY]', default: '[REDACTED:LEAKY_API_KEY]' })
    assert.equal(fn('mcp__leaky__plain').description, `[MCP leaky] Example key format: ${LOOK_ALIKE}`)
  })
})

describe('redactToolSchemas', () => {
  const redact = (text: string) => text.split(SECRET).join('[REDACTED:K]')
  it('leaves other tools, and MCP tools without a secret, as the same objects', () => {
    const own = { name: 'terminal', description: `runs ${SECRET}`, parameters: { type: 'object' } }
    const clean = { name: 'mcp__s__clean', description: `look-alike ${LOOK_ALIKE}`, parameters: { type: 'object', properties: {} } }
    const tools = [own, clean]
    assert.equal(redactToolSchemas(tools, redact), tools)
    const leaky = { name: 'mcp__s__leaky', description: 'd', parameters: { type: 'object', properties: { a: { enum: [SECRET, 'x'] } } } }
    const out = redactToolSchemas([own, clean, leaky], redact)!
    assert.equal(out[0], own)
    assert.equal(out[1], clean)
    assert.deepEqual(out[2]!.parameters, { type: 'object', properties: { a: { enum: ['[REDACTED:K]', 'x'] } } })
    assert.equal(leaky.parameters.properties.a.enum[0], SECRET) // not mutated
  })
  it('does not offer a tool whose name or a property name holds a known secret (they cannot be redacted)', () => {
    const named = { name: `mcp__s__${SECRET}`, description: 'd', parameters: { type: 'object' } }
    const keyed = { name: 'mcp__s__keyed', description: 'd', parameters: { type: 'object', properties: { [`token_${SECRET}`]: { type: 'string' } } } }
    const deep = { name: 'mcp__s__deep', description: 'd', parameters: { type: 'object', properties: { a: { type: 'object', properties: { [SECRET]: {} } } } } }
    const lookAlike = { name: `mcp__s__${LOOK_ALIKE.replace(/-/g, '_')}`, description: 'd', parameters: { type: 'object', properties: { [LOOK_ALIKE]: { type: 'string' } } } }
    const own = { name: 'terminal', description: 'd', parameters: { type: 'object' } }
    assert.deepEqual(redactToolSchemas([named, own, keyed, deep, lookAlike], redact), [own, lookAlike])
  })
})
