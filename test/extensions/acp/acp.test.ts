// `agent acp` end to end: the real bin as a child process, driven by the ACP SDK's client over its
// stdio, against the scripted OpenAI-compatible model. Initialization, sessions, streamed answers,
// tool calls, cancellation, permission requests, errors, model switching, and stdout discipline.

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { acpModelEnv, type AcpProcess, chunkText, initialized, projectDir, startAcp } from './acp-client.ts'

const SECRET_KEY = 'sk-acp-test-secret-key-0123456789'

/** A user extension that prints to stdout at load, setup and start: it must not reach the protocol. */
const NOISY_EXTENSION = `import { defineExtension } from 'agent/sdk'
console.log('noise at load')
export default defineExtension({ name: 'noisy', setup(api) {
  process.stdout.write('noise at setup\\n')
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
    cwd = projectDir('agent-acp-project-')
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
      env: acpModelEnv(model, SECRET_KEY),
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

  it('shows a tool call (tool_call, then tool_call_update completed with its result) before the final answer', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'note.txt' } }] }, { text: 'The note is about milk.' })
    const response = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what does note.txt say?' }] })
    assert.equal(response.stopReason, 'end_turn')
    const updates = proc.updatesOf(sessionId)
    const start = updates.findIndex((u) => u.sessionUpdate === 'tool_call')
    const done = updates.findIndex((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed')
    const answer = updates.findIndex((u) => u.sessionUpdate === 'agent_message_chunk')
    assert.ok(start >= 0 && done > start && answer > done, `order: ${updates.map((u) => u.sessionUpdate).join(', ')}`)
    const call = updates[start] as Extract<(typeof updates)[number], { sessionUpdate: 'tool_call' }>
    assert.equal(call.kind, 'read')
    assert.equal(call.status, 'pending')
    assert.equal(call.title, 'Read note.txt')
    assert.deepEqual(call.locations, [{ path: join(cwd, 'note.txt') }])
    assert.deepEqual(call.rawInput, { path: 'note.txt' })
    const running = updates.findIndex((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress')
    assert.ok(running > start && running < done, 'in_progress comes between the call and its result')
    const result = updates[done] as Extract<(typeof updates)[number], { sessionUpdate: 'tool_call_update' }>
    assert.equal(result.toolCallId, call.toolCallId)
    const text = (result.content ?? []).map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : '')).join('')
    assert.match(text, /remember the milk/)
    assert.equal(chunkText(updates, 'agent_message_chunk'), 'The note is about milk.')
    // The model got the tool result back.
    const toolMessage = (model.requests.at(-1)!.body.messages as any[]).find((m) => m.role === 'tool')
    assert.match(String(toolMessage?.content), /remember the milk/)
  })

  it('turns resource links and embedded resources into references and context', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ text: 'noted' })
    const file = join(cwd, 'src', 'main.ts')
    const response = await proc.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'compare ' },
        { type: 'resource_link', name: 'note.txt', uri: `file://${join(cwd, 'note.txt')}` },
        { type: 'text', text: ' with ' },
        { type: 'resource', resource: { uri: `file://${file}`, mimeType: 'text/x-typescript', text: 'export const answer = 42\n' } },
      ],
    })
    assert.equal(response.stopReason, 'end_turn')
    const sent = lastUserText(model.requests.at(-1)!.body)
    assert.ok(sent.startsWith(`compare [@note.txt](${join(cwd, 'note.txt')}) with [@main.ts](${file})`), sent)
    assert.match(sent, new RegExp(`<context ref="${file}">\nexport const answer = 42\n</context>`))
    await assert.rejects(proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'audio', mimeType: 'audio/wav', data: 'AAAA' }] }), (error: any) => error.code === -32602 && /audio/.test(error.message))
    // An image goes to the model as an image part next to the text.
    model.enqueue({ text: 'a red pixel' })
    const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is this?' }, { type: 'image', mimeType: 'image/png', data: pixel }] })
    const user = (model.requests.at(-1)!.body.messages as any[]).filter((m) => m.role === 'user').at(-1)
    assert.ok(Array.isArray(user.content), JSON.stringify(user.content))
    assert.deepEqual(user.content.map((p: any) => p.type), ['text', 'image_url'])
    assert.equal(user.content[1].image_url.url, `data:image/png;base64,${pixel}`)
  })

  it('cancels a slow turn: the prompt answers cancelled and the session stays usable', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ text: 'a very slow answer that should never be finished '.repeat(4), chunkSize: 2, chunkDelayMs: 100 })
    const prompt = proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'take your time' }] })
    await proc.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    // A second prompt while one runs is refused without disturbing the first.
    await assert.rejects(proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'me too' }] }), /already running/)
    await proc.agent.notify('session/cancel', { sessionId })
    const response = await prompt
    assert.equal(response.stopReason, 'cancelled')
    assert.ok(chunkText(proc.updatesOf(sessionId), 'agent_message_chunk').length < 100)
    model.enqueue({ text: 'back again' })
    const next = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'still there?' }] })
    assert.equal(next.stopReason, 'end_turn')
    assert.match(chunkText(proc.updatesOf(sessionId), 'agent_message_chunk'), /back again$/)
  })

  it('asks the editor before a dangerous command: reject blocks it, allow once runs it', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    mkdirSync(join(cwd, 'build'), { recursive: true })
    writeFileSync(join(cwd, 'build', 'out.js'), 'built\n')
    const command = 'rm -rf ./build'
    proc.answerPermission = () => ({ outcome: { outcome: 'selected', optionId: 'deny' } })
    model.enqueue({ toolCalls: [{ id: 'call_rm1', name: 'terminal', arguments: { command } }] }, { text: 'I did not delete it.' })
    const denied = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'clean the build' }] })
    assert.equal(denied.stopReason, 'end_turn')
    assert.ok(existsSync(join(cwd, 'build', 'out.js')), 'a rejected command must not run')
    const asked = proc.permissions.at(-1)!
    assert.equal(asked.sessionId, sessionId)
    assert.deepEqual(asked.options.map((o) => o.kind), ['allow_once', 'allow_always', 'allow_always', 'reject_once'])
    const call = proc.updatesOf(sessionId).find((u) => u.sessionUpdate === 'tool_call')!
    assert.equal(asked.toolCall.toolCallId, (call as any).toolCallId, 'the request names the waiting tool call')
    assert.equal((call as any).kind, 'execute')
    const failed = proc.updatesOf(sessionId).find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed') as any
    assert.ok(failed)
    // The editor is told why, in the run's own words (the guard's reason), not a generic line.
    assert.match(JSON.stringify(failed.content), /did not approve/)
    const toolResult = (model.requests.at(-1)!.body.messages as any[]).find((m) => m.role === 'tool')
    assert.match(String(toolResult.content), /did not approve/)

    proc.answerPermission = () => ({ outcome: { outcome: 'selected', optionId: 'once' } })
    model.enqueue({ toolCalls: [{ id: 'call_rm2', name: 'terminal', arguments: { command } }] }, { text: 'Deleted.' })
    const allowed = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'clean it, really' }] })
    assert.equal(allowed.stopReason, 'end_turn')
    assert.equal(existsSync(join(cwd, 'build')), false, 'an allowed command runs')
    const updates = proc.updatesOf(sessionId)
    const last = updates.filter((u) => u.sessionUpdate === 'tool_call_update').at(-1) as any
    assert.equal(last.status, 'completed')
  })

  it('withdraws a pending permission request when the turn is cancelled, and runs nothing', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    mkdirSync(join(cwd, 'dist'), { recursive: true })
    let withdrawn = false
    // The editor shows the question and never answers; the user presses stop instead.
    proc.answerPermission = (_request, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => ((withdrawn = true), resolve({ outcome: { outcome: 'cancelled' } })), { once: true }))
    const asked = proc.permissions.length
    model.enqueue({ toolCalls: [{ id: 'call_rm3', name: 'terminal', arguments: { command: 'rm -rf ./dist' } }] })
    const prompt = proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remove dist' }] })
    const deadline = Date.now() + 20_000
    while (proc.permissions.length === asked && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    assert.equal(proc.permissions.length, asked + 1, 'a permission request arrived')
    await proc.agent.notify('session/cancel', { sessionId })
    assert.equal((await prompt).stopReason, 'cancelled')
    assert.ok(withdrawn, 'the agent cancelled its permission request')
    assert.ok(existsSync(join(cwd, 'dist')), 'nothing ran')
    const last = proc.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').at(-1) as any
    assert.equal(last.status, 'failed')
  })

  it('reports a failing model call as a one-line JSON-RPC error without secrets, and keeps serving', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ status: 400, error: `invalid request (key ${SECRET_KEY} rejected)` })
    await assert.rejects(proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'fail please' }] }), (error: any) => {
      assert.equal(error.code, -32603)
      assert.ok(!error.message.includes(SECRET_KEY), error.message)
      assert.ok(!error.message.includes('\n'), 'one line')
      assert.match(error.message, /invalid request/)
      return true
    })
    model.enqueue({ text: 'recovered' })
    const response = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] })
    assert.equal(response.stopReason, 'end_turn')
    assert.ok(!proc.stderr().includes(SECRET_KEY), 'no secret in the logs either')
  })

  it('offers the model as a session config option and switches it per session', async () => {
    const created = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    const option = created.configOptions?.find((o) => o.id === 'model') as any
    assert.equal(option?.category, 'model')
    assert.equal(option.currentValue, 'custom:scripted-model')
    // The provider's list is fetched once, in the background: the first session got it as an
    // update, later ones have it from the start.
    const update = await proc.waitForUpdate((n) => n.update.sessionUpdate === 'config_option_update')
    assert.notEqual(update.sessionId, created.sessionId)
    const pushed = ((update.update as any).configOptions[0].options as any[]).map((o) => o.value)
    assert.ok(pushed.includes('custom:other-model'), pushed.join(', '))
    assert.deepEqual((option.options as any[]).map((o) => o.value), ['custom:scripted-model', 'custom:other-model'])
    const changed = await proc.agent.request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: 'custom:other-model' })
    assert.equal((changed.configOptions[0] as any).currentValue, 'custom:other-model')
    await assert.rejects(proc.agent.request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: 'custom:no-such-model' }), (error: any) => error.code === -32602 && /unknown model/.test(error.message))
    await assert.rejects(proc.agent.request('session/set_config_option', { sessionId: created.sessionId, configId: 'mood', value: 'x' }), (error: any) => error.code === -32602)
    model.enqueue({ text: 'from the other model' })
    await proc.agent.request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'who are you?' }] })
    assert.equal(model.requests.at(-1)!.body.model, 'other-model')
  })

  it('lists its sessions for the working directory', async () => {
    const listed = await proc.agent.request('session/list', { cwd })
    assert.ok(listed.sessions.length >= 5, `sessions: ${listed.sessions.length}`)
    for (const s of listed.sessions) assert.equal(s.cwd, cwd)
    const elsewhere = await proc.agent.request('session/list', { cwd: '/nowhere/else' })
    assert.deepEqual(elsewhere.sessions, [])
  })

  it('writes nothing but JSON-RPC on stdout, even when an extension prints', async () => {
    const lines = proc.lines()
    assert.ok(lines.length > 20)
    for (const line of lines) {
      const message = JSON.parse(line)
      assert.equal(message.jsonrpc, '2.0', line)
    }
    for (const noise of ['noise at load', 'noise at setup', 'noise from an extension', 'more noise']) {
      assert.match(proc.stderr(), new RegExp(`extension "noisy" wrote \\(sent here instead\\): ${noise}`))
    }
  })

  it('exits 0 when the editor closes stdin', async () => {
    proc.child.stdin.end()
    assert.equal(await proc.exited(20_000), 0)
  })
})

describe('agent acp session/load', () => {
  let home: string
  let cwd: string
  let model: ScriptedModelServer
  const env = () => acpModelEnv(model, 'sk-load-test-key-000000')

  before(async () => {
    home = makeTempHome('agent-acp-load-')
    cwd = projectDir('agent-acp-load-project-')
    writeFileSync(join(cwd, 'todo.md'), '- ship the editor mode\n')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
    model = await startScriptedModel()
  })
  after(async () => {
    await model?.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(cwd, { recursive: true, force: true })
  })

  it('replays a stored conversation in a new process, then continues it', async (t) => {
    const first = startAcp({ home, cwd, env: env() })
    t.after(() => first.kill())
    await initialized(first)
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ toolCalls: [{ id: 'call_todo', name: 'read_file', arguments: { path: 'todo.md' } }] }, { text: 'One item: ship the editor mode.' })
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is on my list?' }] })
    first.child.stdin.end()
    assert.equal(await first.exited(), 0)

    const second = startAcp({ home, cwd, env: env() })
    t.after(() => second.kill())
    await initialized(second)
    await assert.rejects(second.agent.request('session/load', { sessionId: 'no_such_session', cwd, mcpServers: [] }), (error: any) => error.code === -32002)
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    // Every replayed update came before the load answered.
    const replay = second.updatesOf(sessionId)
    assert.equal(chunkText(replay, 'user_message_chunk'), 'what is on my list?')
    assert.equal(chunkText(replay, 'agent_message_chunk'), 'One item: ship the editor mode.')
    const kinds = replay.map((u) => u.sessionUpdate).filter((k) => k !== 'available_commands_update')
    assert.deepEqual(kinds, ['user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk'])
    assert.equal((replay[2] as any).status, 'completed')

    model.enqueue({ text: 'Still one item.' })
    const response = await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] })
    assert.equal(response.stopReason, 'end_turn')
    const sent = model.requests.at(-1)!.body.messages as any[]
    assert.ok(sent.some((m) => m.role === 'user' && m.content === 'what is on my list?'), 'the earlier turn is in the context')
    assert.ok(sent.some((m) => m.role === 'tool' && /ship the editor mode/.test(m.content)))
  })
})

describe('agent acp stop reasons', () => {
  it('answers max_turn_requests when the run hits its iteration cap', async (t) => {
    const home = makeTempHome('agent-acp-max-')
    const cwd = projectDir('agent-acp-max-project-')
    writeFileSync(join(cwd, 'a.txt'), 'a\n')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, agent: { max_iterations: 1 } }))
    const model = await startScriptedModel({ turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }] })
    const proc = startAcp({ home, cwd, env: acpModelEnv(model, 'sk-max-test-key-000000') })
    t.after(async () => {
      await proc.kill()
      await model.close()
      rmSync(home, { recursive: true, force: true })
      rmSync(cwd, { recursive: true, force: true })
    })
    await initialized(proc)
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    const response = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'loop' }] })
    assert.equal(response.stopReason, 'max_turn_requests')
  })

  it('exits 0 soon after the editor closes stdin in the middle of a turn', async (t) => {
    const home = makeTempHome('agent-acp-close-')
    const cwd = projectDir('agent-acp-close-project-')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
    const model = await startScriptedModel({ turns: [{ text: 'x'.repeat(400), chunkSize: 1, chunkDelayMs: 50 }] })
    const proc = startAcp({ home, cwd, env: acpModelEnv(model, 'sk-close-test-key-000000') })
    t.after(async () => {
      await proc.kill()
      await model.close()
      rmSync(home, { recursive: true, force: true })
      rmSync(cwd, { recursive: true, force: true })
    })
    await initialized(proc)
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    const prompt = proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk slowly' }] })
    prompt.catch(() => undefined)
    await proc.waitForUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk')
    proc.child.stdin.end()
    // The turn alone would take 20 s; closing cancels it.
    assert.equal(await proc.exited(10_000), 0)
  })
})
