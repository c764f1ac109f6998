// `agent mcp serve` answers the official SDK client and the MCP Inspector's CLI, each spawning the real
// `node kernel/bin/agent.mjs mcp serve`: tools (structured and image results, guards, approvals asked
// by elicitation), resources (sessions, transcripts, skills), prompts (skills), JSON-RPC errors, the
// agent's version, and stdout kept for the protocol although an extension prints at load and setup.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { hermeticEnv, makeTempHome, startScriptedModel } from 'agent/sdk/testing'
import { AGENT_BIN, runAgent } from '../../helpers/agent-process.ts'

const text = (result: any) => (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('')
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
const AGENT_VERSION = JSON.parse(readFileSync(join(AGENT_BIN, '..', '..', '..', 'package.json'), 'utf8')).version
const INSPECTOR = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js')
const SECRET = 'sk-serve-test-secret-0123456789abcdef'

/** Prints at load and at setup; registers tools with a text, a structured and an image result. */
const GREETER = `import { defineExtension, toolResult } from 'agent/sdk'
console.log('greeter noise at load')
export default defineExtension({ name: 'greeter', setup(api) {
  process.stdout.write('greeter noise at setup\\n')
  api.tools.register({ name: 'greet', description: 'Greet someone', parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    execute: ({ input, session }) => { console.log('greeter noise at run time'); return 'hello ' + input.who + ' from ' + session.source?.platform } })
  api.tools.register({ name: 'measure', description: 'Measure a word', parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    outputSchema: { type: 'object', properties: { word: { type: 'string' }, length: { type: 'number' } }, required: ['word', 'length'] },
    execute: ({ input }) => ({ word: input.word, length: input.word.length }) })
  api.tools.register({ name: 'snapshot', description: 'A picture', parameters: { type: 'object', properties: {} },
    execute: () => toolResult('one red pixel', [{ type: 'image_url', image_url: { url: 'data:image/png;base64,${PIXEL}' } }]) })
} })
`

describe('agent mcp serve', () => {
  let home: string
  let work: string
  let client: Client
  let stderr = ''
  let elicitation: (message: string) => { action: 'accept' | 'decline'; content?: Record<string, unknown> } = () => ({ action: 'decline' })
  const asked: string[] = []

  const env = () => hermeticEnv({ AGENT_LOG_LEVEL: 'warn', MCP_TEST_TOKEN: SECRET }, home) as Record<string, string>

  before(async () => {
    home = makeTempHome()
    // The Inspector CLI 1.0.3 imports "../package.json" when it exists relative to its cwd: give it one.
    writeFileSync(join(home, 'package.json'), '{}')
    work = join(home, 'work')
    mkdirSync(join(work, 'build'), { recursive: true })
    writeFileSync(join(work, 'note.txt'), 'a note for the MCP client\n')
    mkdirSync(join(home, 'extensions', 'greeter'), { recursive: true })
    writeFileSync(join(home, 'extensions', 'greeter', 'index.ts'), GREETER)
    writeFileSync(
      join(home, 'config.yaml'),
      YAML.stringify({ _config_version: 10, approvals: { mode: 'manual', timeout: 20 }, mcp_servers: { other: { command: 'node', args: ['nothing.mjs'] } } }),
    )
    mkdirSync(join(home, 'mcp', 'tools'), { recursive: true })
    writeFileSync(join(home, 'mcp', 'tools', 'other.json'), JSON.stringify({ server: 'other', updated_at: '', tools: [{ name: 'loop', inputSchema: { type: 'object' } }] }))
    writeFileSync(join(home, '.env'), `MCP_TEST_TOKEN=${SECRET}\n`)

    // One stored conversation, for the session resources.
    const model = await startScriptedModel({ turns: [{ text: `the transcript answer (token ${SECRET})` }] })
    try {
      const chat = await runAgent(['chat', '-q', 'a question for the transcript'], {
        home,
        cwd: work,
        env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-model-key-000000000000', AGENT_MODEL: 'scripted-model' },
      })
      assert.equal(chat.code, 0, chat.stderr)
    } finally {
      await model.close()
    }

    const transport = new StdioClientTransport({ command: process.execPath, args: [AGENT_BIN, 'mcp', 'serve'], env: env(), cwd: work, stderr: 'pipe' })
    transport.stderr?.on('data', (d) => (stderr += d))
    client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message)
      return elicitation(request.params.message)
    })
    await client.connect(transport, { timeout: 30_000 })
  })
  after(async () => {
    await client?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it("identifies itself with the agent's version and lists tools with their schemas, without bridged MCP tools", async () => {
    assert.equal(client.getServerVersion()?.name, 'agent')
    assert.equal(client.getServerVersion()?.version, AGENT_VERSION)
    const capabilities = client.getServerCapabilities()!
    assert.ok(capabilities.tools && capabilities.resources && capabilities.prompts, JSON.stringify(capabilities))
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    for (const expected of ['greet', 'measure', 'skills_list', 'skill_view', 'read_file', 'terminal']) assert.ok(names.includes(expected), `${expected} missing from ${names.join(', ')}`)
    assert.ok(!names.some((n) => n.startsWith('mcp__')), names.join(', '))
    assert.deepEqual(tools.find((t) => t.name === 'greet')!.inputSchema.required, ['who'])
    assert.deepEqual(tools.find((t) => t.name === 'measure')!.outputSchema?.required, ['word', 'length'])
    assert.match(stderr, /agent mcp serve: \d+ tools on stdio/)
  })

  it('calls tools: text, structured (checked against the outputSchema by the client) and image results', async () => {
    const { tools } = await client.listTools()
    assert.equal(text(await client.callTool({ name: 'greet', arguments: { who: 'client' } })), 'hello client from mcp')
    const measured = await client.callTool({ name: 'measure', arguments: { word: 'agent' } })
    assert.deepEqual(measured.structuredContent, { word: 'agent', length: 5 })
    assert.deepEqual(JSON.parse(text(measured)), { word: 'agent', length: 5 })
    const picture = await client.callTool({ name: 'snapshot', arguments: {} })
    assert.deepEqual(picture.content, [
      { type: 'text', text: 'one red pixel' },
      { type: 'image', mimeType: 'image/png', data: PIXEL },
    ])
    // Built-in tools that declare their output: the client checks the structured content against it.
    assert.ok(tools.find((t) => t.name === 'skills_list')!.outputSchema)
    const skills = await client.callTool({ name: 'skills_list', arguments: {} })
    assert.ok((skills.structuredContent as any).skills.some((s: any) => s.name === 'plan'))
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'note.txt' } })
    assert.equal(read.isError ?? false, false, text(read))
    assert.match(text(read), /a note for the MCP client/)
  })

  it('answers an unknown tool, resource or prompt and invalid arguments with a JSON-RPC -32602 error, and a failing tool with a tool error', async () => {
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (error: any) => error.code === -32602 && /unknown tool "nope"/.test(error.message))
    await assert.rejects(client.callTool({ name: 'greet', arguments: {} }), (error: any) => error.code === -32602 && /invalid arguments for "greet".*who/.test(error.message))
    await assert.rejects(client.callTool({ name: 'greet', arguments: { who: 7 } }), (error: any) => error.code === -32602)
    await assert.rejects(client.readResource({ uri: 'agent://nowhere' }), (error: any) => error.code === -32602)
    await assert.rejects(client.readResource({ uri: 'agent://sessions/no_such_session' }), (error: any) => error.code === -32602 && /no session/.test(error.message))
    await assert.rejects(client.getPrompt({ name: 'no-such-skill' }), (error: any) => error.code === -32602)
    const missing = await client.callTool({ name: 'skill_view', arguments: { name: 'does-not-exist' } })
    assert.equal(missing.isError, true)
    assert.match(text(missing), /no skill named "does-not-exist"/)
    assert.equal(text(await client.callTool({ name: 'greet', arguments: { who: 'again' } })), 'hello again from mcp')
  })

  it('runs the guards: a never-allowed command is blocked; a dangerous one is asked by elicitation', async () => {
    const blocked = await client.callTool({ name: 'terminal', arguments: { command: 'rm -rf /' } })
    assert.equal(blocked.isError, true)
    assert.match(text(blocked), /BLOCKED/)
    assert.equal(asked.length, 0, 'never-allowed commands are not asked')

    writeFileSync(join(work, 'build', 'out.js'), 'built\n')
    elicitation = () => ({ action: 'decline' })
    const declined = await client.callTool({ name: 'terminal', arguments: { command: 'rm -rf ./build' } })
    assert.equal(declined.isError, true)
    assert.match(text(declined), /did not approve/)
    assert.match(asked.at(-1)!, /rm -rf \.\/build/)
    assert.ok(existsSync(join(work, 'build', 'out.js')), 'a declined command does not run')

    elicitation = () => ({ action: 'accept', content: { decision: 'once' } })
    const allowed = await client.callTool({ name: 'terminal', arguments: { command: 'rm -rf ./build' } })
    assert.equal(allowed.isError ?? false, false, text(allowed))
    assert.deepEqual([(allowed.structuredContent as any).exit_code, (allowed.structuredContent as any).backend], [0, 'local'])
    assert.equal(existsSync(join(work, 'build')), false, 'an approved command runs')
  })

  it('offers the skills and the stored sessions as resources, secrets removed', async () => {
    const { resources } = await client.listResources()
    const uris = resources.map((r) => r.uri)
    assert.ok(uris.includes('agent://skills/plan'), uris.join(', '))
    assert.ok(uris.includes('agent://sessions'), uris.join(', '))
    const session = resources.find((r) => r.uri.startsWith('agent://sessions/'))
    assert.ok(session, uris.join(', '))
    const [transcript] = (await client.readResource({ uri: session.uri })).contents as Array<{ text: string; mimeType: string }>
    assert.equal(transcript!.mimeType, 'text/markdown')
    assert.match(transcript!.text, /a question for the transcript/)
    assert.match(transcript!.text, /the transcript answer/)
    assert.ok(!transcript!.text.includes(SECRET), 'known secrets are redacted')
    const index = JSON.parse(((await client.readResource({ uri: 'agent://sessions' })).contents[0] as { text: string }).text)
    assert.ok(index.sessions.some((s: any) => `agent://sessions/${s.id}` === session.uri))
    const skill = (await client.readResource({ uri: 'agent://skills/plan' })).contents[0] as { text: string }
    assert.ok(skill.text.length > 50)
    const { resourceTemplates } = await client.listResourceTemplates()
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), ['agent://sessions/{id}', 'agent://skills/{name}'])
  })

  it('offers the skills as prompts', async () => {
    const { prompts } = await client.listPrompts()
    const plan = prompts.find((p) => p.name === 'plan')
    assert.ok(plan, prompts.map((p) => p.name).join(', '))
    assert.equal(plan.arguments?.[0]?.name, 'task')
    const got = await client.getPrompt({ name: 'plan', arguments: { task: 'add a dark mode' } })
    const message = got.messages[0]!
    assert.equal(message.role, 'user')
    assert.match((message.content as { text: string }).text, /Follow the skill "plan"[\s\S]*Task: add a dark mode$/)
  })

  it("keeps stdout for the protocol: the extension's prints at load, setup and run time are logged on stderr", async () => {
    for (const line of ['greeter noise at load', 'greeter noise at setup', 'greeter noise at run time']) {
      assert.match(stderr, new RegExp(`extension "greeter" wrote \\(sent here instead\\): ${line}`))
    }
  })

  describe('driven by the MCP Inspector CLI', () => {
    const inspector = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [INSPECTOR, '--cli', process.execPath, AGENT_BIN, 'mcp', 'serve', ...args], { cwd: work, env: env(), stdio: ['ignore', 'pipe', 'pipe'] })
        let out = ''
        let err = ''
        child.stdout.on('data', (d) => (out += d))
        child.stderr.on('data', (d) => (err += d))
        const timer = setTimeout(() => {
          child.kill('SIGKILL')
          reject(new Error(`the inspector did not finish within 60 s\n${out}\n${err}`))
        }, 60_000)
        child.on('close', (code) => {
          clearTimeout(timer)
          resolve({ code, stdout: out, stderr: err })
        })
      })
    /** The inspector prints a deprecation banner, then the answer as one JSON document. */
    const answer = (run: { stdout: string }) => JSON.parse(run.stdout.slice(run.stdout.indexOf('\n{') + 1))

    it('lists and calls tools, with structured results', async () => {
      const listed = await inspector(['--method', 'tools/list'])
      assert.equal(listed.code, 0, listed.stdout + listed.stderr)
      const names = answer(listed).tools.map((t: any) => t.name)
      assert.ok(names.includes('measure') && names.includes('read_file'), names.join(', '))
      const called = await inspector(['--method', 'tools/call', '--tool-name', 'measure', '--tool-arg', 'word=inspector'])
      assert.equal(called.code, 0, called.stdout + called.stderr)
      assert.deepEqual(answer(called).structuredContent, { word: 'inspector', length: 9 })
    })

    it('refuses a command that needs approval with a clean tool error (the inspector cannot be asked)', async () => {
      mkdirSync(join(work, 'dist'), { recursive: true })
      const run = await inspector(['--method', 'tools/call', '--tool-name', 'terminal', '--tool-arg', 'command=rm -rf ./dist'])
      assert.equal(run.code, 0, run.stdout + run.stderr)
      const result = answer(run)
      assert.equal(result.isError, true)
      assert.match(text(result), /did not approve.*cannot ask its user/)
      assert.doesNotMatch(text(result), /adapter|platform|deliver/)
      assert.ok(existsSync(join(work, 'dist')))
    })

    it('reads a resource and gets a prompt; an unknown tool fails with -32602', async () => {
      const read = await inspector(['--method', 'resources/read', '--uri', 'agent://skills/plan'])
      assert.equal(read.code, 0, read.stdout + read.stderr)
      assert.equal(answer(read).contents[0].mimeType, 'text/markdown')
      const prompt = await inspector(['--method', 'prompts/get', '--prompt-name', 'plan', '--prompt-args', 'task=ship it'])
      assert.equal(prompt.code, 0, prompt.stdout + prompt.stderr)
      assert.match(answer(prompt).messages[0].content.text, /Task: ship it/)
      const unknown = await inspector(['--method', 'tools/call', '--tool-name', 'nope'])
      assert.notEqual(unknown.code, 0)
      assert.match(unknown.stdout + unknown.stderr, /-32602.*unknown tool "nope"/)
    })
  })
})
