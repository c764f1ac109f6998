// `agent acp` session features end to end (the real bin, the ACP SDK's client, the scripted model):
// requests sent before the initialize answer, session modes as approval modes, the registry's slash
// commands, usage updates, a tool cancelled mid-run, the model kept with the session across
// session/load, session/delete, the editor's file system and terminal, and exiting when stdin
// closes at once.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import * as acp from '@agentclientprotocol/sdk'
import { hermeticEnv, makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { AGENT_BIN } from '../../helpers/agent-process.ts'
import { acpModelEnv, type AcpProcess, chunkText, initialized, projectDir, startAcp } from './acp-client.ts'

const toolUpdates = (updates: readonly acp.SessionUpdate[]) => updates.filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'tool_call_update' }> => u.sessionUpdate === 'tool_call_update')

describe('agent acp sessions', () => {
  let home: string
  let cwd: string
  let model: ScriptedModelServer
  let proc: AcpProcess
  const env = () => acpModelEnv(model, 'sk-acp-session-key-000000')

  before(async () => {
    home = makeTempHome('agent-acp-session-')
    cwd = projectDir('agent-acp-session-project-')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, approvals: { mode: 'manual', timeout: 20 }, extensions: { 'model-resolver': { retries: 0 } } }))
    model = await startScriptedModel({ models: ['scripted-model', 'other-model'] })
    proc = startAcp({ home, cwd, env: env() })
  })
  after(async () => {
    await proc?.kill()
    await model?.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(cwd, { recursive: true, force: true })
  })

  it('answers session/new sent right behind initialize, before its answer, instead of refusing it', async () => {
    const init = initialized(proc)
    const created = proc.agent.request('session/new', { cwd, mcpServers: [] })
    const [answer, session] = await Promise.all([init, created])
    assert.equal(answer.agentCapabilities?.sessionCapabilities?.delete !== undefined, true)
    assert.match(session.sessionId, /^\d{8}_\d{6}_[0-9a-f]{8}$/)
  })

  it('offers the approval modes as session modes: Auto runs a dangerous command without asking, never-allowed stays blocked', async () => {
    const { sessionId, modes } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    assert.equal(modes?.currentModeId, 'manual')
    assert.deepEqual(modes?.availableModes.map((m) => m.id), ['manual', 'smart', 'off'])
    await assert.rejects(proc.agent.request('session/set_mode', { sessionId, modeId: 'bogus' }), (error: any) => error.code === -32602 && /unknown mode/.test(error.message))
    await proc.agent.request('session/set_mode', { sessionId, modeId: 'off' })
    mkdirSync(join(cwd, 'build'), { recursive: true })
    const asked = proc.permissions.length
    model.enqueue({ toolCalls: [{ id: 'call_rm', name: 'terminal', arguments: { command: 'rm -rf ./build' } }, { id: 'call_root', name: 'terminal', arguments: { command: 'rm -rf /' } }] }, { text: 'done' })
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'clean up' }] })
    assert.equal(proc.permissions.length, asked, 'nothing was asked in Auto mode')
    assert.equal(existsSync(join(cwd, 'build')), false, 'the dangerous command ran')
    const tools = (model.requests.at(-1)!.body.messages as any[]).filter((m) => m.role === 'tool').map((m) => String(m.content))
    assert.ok(tools.some((t) => /BLOCKED.*never allowed/.test(t)), tools.join('\n'))

    // Another session keeps the configured mode: the same command is asked there (and rejected).
    const other = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    mkdirSync(join(cwd, 'build'), { recursive: true })
    model.enqueue({ toolCalls: [{ id: 'call_rm2', name: 'terminal', arguments: { command: 'rm -rf ./build' } }] }, { text: 'not done' })
    await proc.agent.request('session/prompt', { sessionId: other.sessionId, prompt: [{ type: 'text', text: 'clean up' }] })
    assert.equal(proc.permissions.length, asked + 1)
    assert.ok(existsSync(join(cwd, 'build')))
  })

  it("advertises the registry's slash commands and runs one typed as a prompt", async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    const update = await proc.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update')
    const names = (update.update as Extract<acp.SessionUpdate, { sessionUpdate: 'available_commands_update' }>).availableCommands.map((c) => c.name)
    for (const expected of ['title', 'usage', 'plan', 'reload-mcp']) assert.ok(names.includes(expected), `${expected} missing: ${names.join(', ')}`)
    for (const terminalOrGateway of ['quit', 'statusbar', 'approve']) assert.ok(!names.includes(terminalOrGateway), `${terminalOrGateway} offered: ${names.join(', ')}`)
    const requests = model.requests.length
    const titled = await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/title Editor thread' }] })
    assert.equal(titled.stopReason, 'end_turn')
    assert.match(chunkText(proc.updatesOf(sessionId), 'agent_message_chunk'), /Editor thread/)
    assert.equal(model.requests.length, requests, 'a slash command is not sent to the model')
    const listed = await proc.agent.request('session/list', { cwd })
    assert.equal(listed.sessions.find((s) => s.sessionId === sessionId)?.title, 'Editor thread')
    // Text that only looks like a command goes to the model.
    model.enqueue({ text: 'that is a path' })
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/usr/bin is where?' }] })
    assert.equal(model.requests.length, requests + 1)
  })

  it('sends usage_update after a turn: the context used and the window', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ text: 'counted', usage: { prompt_tokens: 1200, completion_tokens: 34 } })
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'count me' }] })
    const usage = proc.updatesOf(sessionId).find((u) => u.sessionUpdate === 'usage_update') as Extract<acp.SessionUpdate, { sessionUpdate: 'usage_update' }>
    assert.ok(usage, proc.updatesOf(sessionId).map((u) => u.sessionUpdate).join(', '))
    assert.equal(usage.used, 1234)
    assert.equal(usage.size, 128_000)
  })

  it('reports a tool killed by session/cancel as cancelled, not completed', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ toolCalls: [{ id: 'call_sleep', name: 'terminal', arguments: { command: 'sleep 30' } }] })
    const prompt = proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'wait a while' }] })
    await proc.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call_update' && n.update.status === 'in_progress')
    await proc.agent.notify('session/cancel', { sessionId })
    assert.equal((await prompt).stopReason, 'cancelled')
    const last = toolUpdates(proc.updatesOf(sessionId)).at(-1)!
    assert.equal(last.status, 'failed')
    assert.equal((last.rawOutput as any).cancelled, true)
    assert.match(JSON.stringify(last.content), /Cancelled/)
  })

  it('deletes a session: it is gone from the store and from session/list', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ text: 'stored' })
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'keep me' }] })
    await proc.agent.request('session/delete', { sessionId })
    const listed = await proc.agent.request('session/list', { cwd })
    assert.ok(!listed.sessions.some((s) => s.sessionId === sessionId))
    await assert.rejects(proc.agent.request('session/load', { sessionId, cwd, mcpServers: [] }), (error: any) => error.code === -32002)
    assert.deepEqual(await proc.agent.request('session/delete', { sessionId: 'no_such_session' }), {}, 'deleting twice is done')
  })

  it('forks a session: the branch has the conversation so far and goes on alone', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ text: 'the original answer' })
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'the shared question' }] })
    const forked = await (proc.agent as any).request('session/fork', { sessionId, cwd, mcpServers: [] })
    assert.notEqual(forked.sessionId, sessionId)
    assert.equal(forked.modes.currentModeId, 'manual')
    model.enqueue({ text: 'the branch answer' })
    await proc.agent.request('session/prompt', { sessionId: forked.sessionId, prompt: [{ type: 'text', text: 'only in the branch' }] })
    const sent = (model.requests.at(-1)!.body.messages as any[]).filter((m) => m.role !== 'system').map((m) => m.content)
    assert.deepEqual(sent, ['the shared question', 'the original answer', 'only in the branch'])
    model.enqueue({ text: 'the original goes on' })
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'back in the original' }] })
    const original = (model.requests.at(-1)!.body.messages as any[]).filter((m) => m.role !== 'system').map((m) => m.content)
    assert.deepEqual(original, ['the shared question', 'the original answer', 'back in the original'])
    await assert.rejects((proc.agent as any).request('session/fork', { sessionId: 'no_such_session', cwd, mcpServers: [] }), (error: any) => error.code === -32002)
  })

  it('keeps the model chosen with set_config_option with the session: session/load in a new process restores it', async (t) => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    await proc.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'custom:other-model' })
    model.enqueue({ text: 'from the other model' })
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'first' }] })
    assert.equal(model.requests.at(-1)!.body.model, 'other-model')

    const second = startAcp({ home, cwd, env: env() })
    t.after(() => second.kill())
    await initialized(second)
    const loaded = await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    assert.equal((loaded.configOptions?.[0] as any).currentValue, 'custom:other-model')
    model.enqueue({ text: 'still the other model' })
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'second' }] })
    assert.equal(model.requests.at(-1)!.body.model, 'other-model')
    // A session that never chose keeps following the configured model.
    const plain = await second.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ text: 'default' })
    await second.agent.request('session/prompt', { sessionId: plain.sessionId, prompt: [{ type: 'text', text: 'third' }] })
    assert.equal(model.requests.at(-1)!.body.model, 'scripted-model')
  })
})

describe("agent acp with the editor's file system and terminal", () => {
  let home: string
  let cwd: string
  let model: ScriptedModelServer
  let proc: AcpProcess

  before(async () => {
    home = makeTempHome('agent-acp-editor-')
    cwd = projectDir('agent-acp-editor-project-')
    writeFileSync(join(cwd, 'main.ts'), 'on disk\n')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, approvals: { mode: 'manual', timeout: 20 } }))
    model = await startScriptedModel()
    proc = startAcp({ home, cwd, env: acpModelEnv(model, 'sk-acp-editor-key-000000') })
    await initialized(proc, { fs: { readTextFile: true, writeTextFile: true }, terminal: true })
  })
  after(async () => {
    await proc?.kill()
    await model?.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(cwd, { recursive: true, force: true })
  })

  it('reads the editor buffer and writes through the editor', async () => {
    const buffers = new Map([[join(cwd, 'main.ts'), 'unsaved editor text\n']])
    proc.editor['fs/read_text_file'] = (params) => {
      const content = buffers.get(params.path)
      if (content === undefined) throw new acp.RequestError(-32002, 'no such file')
      return { content }
    }
    proc.editor['fs/write_text_file'] = (params) => (buffers.set(params.path, params.content), {})
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue(
      { toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'main.ts' } }] },
      { toolCalls: [{ id: 'call_patch', name: 'patch', arguments: { path: 'main.ts', old_string: 'unsaved', new_string: 'patched' } }] },
      { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'new.ts', content: 'brand new\n' } }] },
      { text: 'edited' },
    )
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'edit main.ts' }] })
    const tools = (model.requests.at(-1)!.body.messages as any[]).filter((m) => m.role === 'tool').map((m) => String(m.content))
    assert.match(tools[0]!, /1\|unsaved editor text/)
    assert.equal(buffers.get(join(cwd, 'main.ts')), 'patched editor text\n')
    assert.equal(buffers.get(join(cwd, 'new.ts')), 'brand new\n')
    assert.equal(readFileSync(join(cwd, 'main.ts'), 'utf8'), 'on disk\n', 'the disk is the editor business')
    assert.equal(existsSync(join(cwd, 'new.ts')), false)
    assert.ok(proc.editorRequests.every((r) => r.params.sessionId === sessionId))
  })

  it("runs commands in the editor's terminal, and kills one the turn cancels", async () => {
    let exit: (value: unknown) => void = () => undefined
    const created: any[] = []
    proc.editor['terminal/create'] = (params) => (created.push(params), { terminalId: `term-${created.length}` })
    proc.editor['terminal/wait_for_exit'] = (params) => (params.terminalId === 'term-1' ? { exitCode: 0 } : new Promise((resolve) => (exit = resolve)))
    proc.editor['terminal/kill'] = () => (exit({ exitCode: null, signal: 'SIGTERM' }), {})
    proc.editor['terminal/output'] = (params) => ({ output: params.terminalId === 'term-1' ? 'hello from the editor terminal\n' : '', truncated: false, exitStatus: params.terminalId === 'term-1' ? { exitCode: 0 } : { exitCode: null, signal: 'SIGTERM' } })
    proc.editor['terminal/release'] = () => ({})
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ toolCalls: [{ id: 'call_echo', name: 'terminal', arguments: { command: 'echo hello' } }] }, { text: 'ran' })
    await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'say hello' }] })
    // The shell, or bubblewrap running it (the terminal sandbox, where it can run).
    const argv = [created[0].command, ...created[0].args]
    assert.equal(/(ba)?sh$/.test(argv.at(-3)) && (argv.length === 3 || argv[0].endsWith('bwrap')), true, argv.join(' '))
    assert.deepEqual(argv.slice(-2), ['-c', 'echo hello'])
    assert.equal(created[0].cwd, cwd)
    const result = (model.requests.at(-1)!.body.messages as any[]).find((m) => m.role === 'tool')
    assert.match(String(result.content), /hello from the editor terminal/)
    // The editor shows its terminal in the tool call, while it runs and when it is done.
    const shown = proc.updatesOf(sessionId).filter((u: any) => u.sessionUpdate === 'tool_call_update' && u.content?.some((c: any) => c.type === 'terminal' && c.terminalId === 'term-1')) as any[]
    assert.deepEqual(shown.map((u) => u.status), ['in_progress', 'completed'])

    model.enqueue({ toolCalls: [{ id: 'call_wait', name: 'terminal', arguments: { command: 'sleep 30' } }] })
    const prompt = proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'wait' }] })
    const deadline = Date.now() + 20_000
    while (created.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    await proc.agent.notify('session/cancel', { sessionId })
    assert.equal((await prompt).stopReason, 'cancelled')
    const methods = proc.editorRequests.filter((r) => r.params.terminalId === 'term-2').map((r) => r.method)
    assert.deepEqual(methods, ['terminal/wait_for_exit', 'terminal/kill', 'terminal/output', 'terminal/release'])
  })
})

describe('agent acp start-up', () => {
  it('exits promptly when stdin closes in its first moments', async (t) => {
    const home = makeTempHome('agent-acp-early-')
    t.after(() => rmSync(home, { recursive: true, force: true }))
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
    const child = spawn(process.execPath, [AGENT_BIN, 'acp'], { env: hermeticEnv({ AGENT_LOG_LEVEL: 'warn' }, home), cwd: home, stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.stdin.end()
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`agent acp did not exit within 15 s\n${stderr}`))), 15_000)
      child.on('close', (c) => (clearTimeout(timer), resolve(c)))
    })
    assert.equal(code, 0, stderr)
  })
})
