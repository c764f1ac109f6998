// `agent acp` end to end: the real bin as a child process, driven by the ACP SDK's client over its
// stdio, against the scripted OpenAI-compatible model. Initialization, sessions, streamed answers,
// tool calls, cancellation, permission requests, errors, model switching, and stdout discipline.

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { chunkText, initialized, startAcp, type AcpProcess } from './acp-client.ts'

const SECRET_KEY = 'sk-acp-test-secret-key-0123456789'

/** A user extension that prints to stdout when the agent starts: it must not reach the protocol. */
const NOISY_EXTENSION = `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'noisy', setup(api) {
  api.hooks.ready.tap(() => { console.log('noise from an extension'); process.stdout.write('more noise\\n') })
} })
`

function lastUserText(body: any): string {
  const messages: any[] = body?.messages ?? []
  const user = [...messages].reverse().find((m) => m.role === 'user')
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '')
}

describe('agent acp', () => {
  let home: string
  let cwd: string
  let model: ScriptedModelServer
  let proc: AcpProcess

  before(async () => {
    home = makeTempHome('agent-acp-')
    cwd = realpathSync(mkdtempSync(join(tmpdir(), 'agent-acp-project-')))
    writeFileSync(join(cwd, 'note.txt'), 'the note says: remember the milk\n')
    mkdirSync(join(home, 'extensions', 'noisy'), { recursive: true })
    writeFileSync(join(home, 'extensions', 'noisy', 'index.ts'), NOISY_EXTENSION)
    writeFileSync(
      join(home, 'config.yaml'),
      YAML.stringify({ _config_version: 10, approvals: { mode: 'manual', timeout: 20 }, extensions: { 'model-resolver': { retries: 0 } } }),
    )
    model = await startScriptedModel({ models: ['scripted-model', 'other-model'] })
    proc = startAcp({
      home,
      cwd,
      env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: SECRET_KEY, AGENT_MODEL: 'scripted-model' },
    })
  })
  after(async () => {
    await proc?.kill()
    await model?.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(cwd, { recursive: true, force: true })
  })

  it('answers initialize with its capabilities and no auth methods', async () => {
    const init = await initialized(proc)
    assert.equal(init.protocolVersion, 1)
    assert.equal(init.agentCapabilities?.loadSession, true)
    assert.deepEqual(init.agentCapabilities?.promptCapabilities, { image: true, audio: false, embeddedContext: true })
    assert.deepEqual(init.authMethods, [])
    assert.equal(init.agentInfo?.name, 'agent')
    assert.match(init.agentInfo?.version ?? '', /^\d+\.\d+\.\d+/)
  })

  it('refuses a session whose cwd is not an absolute, existing folder', async () => {
    await assert.rejects(proc.agent.request('session/new', { cwd: 'relative/path', mcpServers: [] }), (error: any) => {
      assert.equal(error.code, -32602)
      assert.match(error.message, /cwd must be an absolute path/)
      return true
    })
    await assert.rejects(proc.agent.request('session/new', { cwd: join(cwd, 'missing'), mcpServers: [] }), /does not exist/)
    await assert.rejects(proc.agent.request('session/new', { cwd: join(cwd, 'note.txt'), mcpServers: [] }), /is not a directory/)
    await assert.rejects(proc.agent.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'hi' }] }), (error: any) => error.code === -32002)
  })

  it('streams an answer as agent_message_chunk updates and ends the turn', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    const answer = 'Hello from the scripted model, streamed in small chunks.'
    model.enqueue({ text: answer, chunkSize: 5, reasoning: 'thinking it over' })
    const response = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'say hello' }] })
    assert.equal(response.stopReason, 'end_turn')
    const updates = proc.updatesOf(sessionId)
    const chunks = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk')
    assert.ok(chunks.length > 1, `expected several chunks, got ${chunks.length}`)
    assert.equal(chunkText(updates, 'agent_message_chunk'), answer)
    assert.equal(chunkText(updates, 'agent_thought_chunk'), 'thinking it over')
    assert.equal(lastUserText(model.requests.at(-1)!.body), 'say hello')
  })
})
