// The code-assistant provider: `agent login copilot` (device-code flow against a loopback fake of
// the OAuth endpoints, through the real bin), token sources (environment order, classic PATs
// refused, the vendor CLI), routing of models to the responses API or chat completions, and the
// ACP shim's failure modes with a real subprocess.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { AgentError, type ModelDelta, type ModelsService } from 'agent/sdk'
import { createTestKernel, makeTempHome, startFakeAcpAgent, startFakeResponsesApi, startScriptedModel } from 'agent/sdk/testing'
import { runAgent } from '../../helpers/agent-process.ts'
import { deferrals } from '../../helpers/teardown.ts'

const BUILTINS = ['provider-openai-compat', 'provider-code-assistant', 'model-resolver']

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()))
}

/** The OAuth device endpoints: pending, slow_down, then a token (or the scripted final answer). */
async function fakeGithub(t: any, final: Record<string, unknown> = { access_token: 'gho_fromdevice1234567', token_type: 'bearer', scope: 'read:user' }) {
  const polls: Array<Record<string, string>> = []
  const answers = [{ error: 'authorization_pending' }, { error: 'slow_down', interval: 0 }, final]
  const server = createServer(async (req, res) => {
    const form = await readForm(req)
    res.setHeader('content-type', 'application/json')
    if (req.url === '/login/device/code') return res.end(JSON.stringify({ device_code: 'dev-123', user_code: 'WXYZ-1234', verification_uri: 'http://127.0.0.1/login/device', expires_in: 60, interval: 0 }))
    if (req.url === '/login/oauth/access_token') {
      polls.push(form)
      return res.end(JSON.stringify(answers[Math.min(polls.length - 1, answers.length - 1)]))
    }
    res.statusCode = 404
    res.end('{}')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.after(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, polls }
}

function writeConfig(home: string, text: string): void {
  writeFileSync(join(home, "config.yaml"), `_config_version: 10\n${text}`)
}

test('agent login copilot: device code shown, polling honours slow_down, token saved to .env (0600) and used', async (t) => {
  const github = await fakeGithub(t)
  const home = makeTempHome()
  const defer = deferrals(t)
  defer(() => rmSync(home, { recursive: true, force: true }))
  writeConfig(home, `extensions:\n  provider-code-assistant:\n    oauth_base_url: ${github.url}\n    gh_command: ''\n`)
  const run = await runAgent(['login', 'copilot'], { home, timeoutMs: 60_000 })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /Open http:\/\/127\.0\.0\.1\/login\/device and enter the code WXYZ-1234/)
  assert.match(run.stdout, /Logged in/)
  assert.equal(github.polls.length, 3)
  assert.deepEqual([github.polls[0]!.device_code, github.polls[0]!.grant_type], ['dev-123', 'urn:ietf:params:oauth:grant-type:device_code'])
  const envFile = join(home, '.env')
  assert.match(readFileSync(envFile, 'utf8'), /^COPILOT_GITHUB_TOKEN=gho_fromdevice1234567$/m)
  assert.equal(statSync(envFile).mode & 0o777, 0o600)

  const api = await startFakeResponsesApi({ models: ['gpt-5'] })
  defer(() => api.close())
  const tk = await createTestKernel({ home, builtins: BUILTINS, env: { AGENT_INFERENCE_PROVIDER: 'copilot', AGENT_MODEL: 'gpt-5', COPILOT_API_BASE_URL: api.url } })
  defer(() => tk.close())
  await (await tk.kernel.services.require<ModelsService>('models').resolve()).complete({ messages: [{ role: 'user', content: 'hi' }] })
  assert.equal(api.requests.at(-1)!.headers.authorization, 'Bearer gho_fromdevice1234567')
})

test('agent login copilot: a denied authorization is one line and exit 1', async (t) => {
  const github = await fakeGithub(t, { error: 'access_denied' })
  const home = makeTempHome()
  t.after(() => rmSync(home, { recursive: true, force: true }))
  writeConfig(home, `extensions:\n  provider-code-assistant:\n    oauth_base_url: ${github.url}\n`)
  const run = await runAgent(['login', 'copilot'], { home, timeoutMs: 60_000 })
  assert.equal(run.code, 1)
  assert.equal(run.stderr.trim(), 'agent: copilot login: authorization was denied')
})

type Defer = (fn: () => unknown) => void

async function copilot(defer: Defer, env: Record<string, string>, config: Record<string, unknown> = {}) {
  const tk = await createTestKernel({ builtins: BUILTINS, env: { AGENT_INFERENCE_PROVIDER: 'copilot', ...env }, config: { extensions: { 'provider-code-assistant': { gh_command: '', ...config } } } })
  defer(() => tk.close())
  return tk.kernel.services.require<ModelsService>('models')
}

test('token sources: environment order, classic PATs refused with a reason, the vendor CLI', async (t) => {
  const defer = deferrals(t)
  const api = await startFakeResponsesApi()
  defer(() => api.close())
  const base = { COPILOT_API_BASE_URL: api.url, AGENT_MODEL: 'gpt-5' }
  const models = await copilot(defer, { ...base, GITHUB_TOKEN: 'ghp_classic1234567890', GH_TOKEN: 'github_pat_finegrained123' })
  await (await models.resolve()).complete({ messages: [{ role: 'user', content: 'x' }] })
  assert.equal(api.requests.at(-1)!.headers.authorization, 'Bearer github_pat_finegrained123')
  assert.equal(api.requests.at(-1)!.headers['copilot-integration-id'], 'vscode-chat')

  const classic = await copilot(defer, { ...base, GITHUB_TOKEN: 'ghp_classic1234567890' })
  await assert.rejects(classic.resolve(), (e: unknown) => AgentError.isInstance(e) && /classic personal access token \(ghp_\).*agent login copilot/.test(e.message) && !e.message.includes('ghp_classic1234567890'))
  const none = await copilot(defer, base)
  await assert.rejects(none.resolve(), /copilot: no GitHub token: run `agent login copilot`/)

  const dir = makeTempHome('fake-gh-')
  defer(() => rmSync(dir, { recursive: true, force: true }))
  const gh = join(dir, 'gh')
  writeFileSync(gh, '#!/bin/sh\n[ "$1 $2" = "auth token" ] && echo gho_fromthecli987654\n')
  chmodSync(gh, 0o755)
  const viaCli = await copilot(defer, base, { gh_command: gh })
  await (await viaCli.resolve()).complete({ messages: [{ role: 'user', content: 'x' }] })
  assert.equal(api.requests.at(-1)!.headers.authorization, 'Bearer gho_fromthecli987654')
})

test('newest generation → responses API; gpt-5-mini and other models → chat completions; api_mode forces one', async (t) => {
  const defer = deferrals(t)
  const responses = await startFakeResponsesApi()
  const chat = await startScriptedModel()
  defer(() => responses.close())
  defer(() => chat.close())
  const route = async (model: string, url: string, apiMode?: string) => {
    const models = await copilot(defer, { COPILOT_GITHUB_TOKEN: 'gho_tok1234567890', COPILOT_API_BASE_URL: url }, apiMode ? { api_mode: apiMode } : {})
    const client = await models.resolve({ model })
    assert.equal(client.provider, 'copilot')
    return (await client.complete({ messages: [{ role: 'user', content: 'x' }] })).content
  }
  assert.equal(await route('gpt-5', responses.url), 'echo: x')
  assert.equal(await route('gpt-5.1-codex', responses.url), 'echo: x')
  assert.equal(await route('gpt-6', responses.url), 'echo: x')
  assert.equal(responses.requests.filter((r) => r.path === '/responses').length, 3)
  assert.equal(await route('gpt-5-mini', chat.url), 'echo: x')
  assert.equal(await route('claude-sonnet-4', chat.url), 'echo: x')
  assert.equal(await route('gpt-4.1', chat.url), 'echo: x')
  const chatCalls = chat.requests.filter((r) => r.path.endsWith('/chat/completions'))
  assert.equal(chatCalls.length, 3)
  assert.equal(chatCalls[0]!.headers['copilot-integration-id'], 'vscode-chat')
  assert.equal(await route('claude-sonnet-4', responses.url, 'responses'), 'echo: x')
  // A 401 names the login command.
  const models = await copilot(defer, { COPILOT_GITHUB_TOKEN: 'gho_tok1234567890', COPILOT_API_BASE_URL: chat.url })
  chat.enqueue({ status: 401, error: 'bad credentials' })
  await assert.rejects((await models.resolve({ model: 'claude-sonnet-4' })).complete({ messages: [{ role: 'user', content: 'x' }] }), /copilot: HTTP 401 .*bad credentials \(run `agent login copilot`/)
})

async function acp(defer: Defer, env: Record<string, string>) {
  const tk = await createTestKernel({ builtins: BUILTINS, env: { AGENT_INFERENCE_PROVIDER: 'copilot-acp', ...env }, config: { extensions: { 'model-resolver': { retries: 0 } } } })
  defer(() => tk.close())
  return tk.kernel.services.require<ModelsService>('models').resolve()
}

test('ACP shim: a missing command, a crashing agent and an agent error are one line each', async (t) => {
  const defer = deferrals(t)
  const missing = await acp(defer, { AGENT_COPILOT_ACP_COMMAND: '/nonexistent/copilot' })
  await assert.rejects(missing.complete({ messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => AgentError.isInstance(e) && e.code === 'E_PROVIDER' && e.message === 'copilot-acp: cannot start the ACP process: command not found: /nonexistent/copilot (set AGENT_COPILOT_ACP_COMMAND or COPILOT_CLI_PATH)')
  const fake = await startFakeAcpAgent([{ dropConnection: true }, { status: 500, error: 'model quota exceeded' }])
  defer(() => fake.close())
  const client = await acp(defer, { AGENT_COPILOT_ACP_COMMAND: fake.command, AGENT_COPILOT_ACP_ARGS: fake.args.join(' ') })
  await assert.rejects(client.complete({ messages: [{ role: 'user', content: 'x' }] }), /^AgentError: copilot-acp: the ACP process exited \(code 3\): fake agent: connection to the service lost$/)
  await assert.rejects(client.complete({ messages: [{ role: 'user', content: 'x' }] }), /copilot-acp: ACP error -32000: model quota exceeded/)
})

test('ACP shim: permission requests are declined; tool-call blocks never reach the streamed text', async (t) => {
  const defer = deferrals(t)
  const fake = await startFakeAcpAgent([{ text: 'Let me look.', toolCalls: [{ id: '', name: 'read_file', arguments: { path: 'a.txt' } }], chunkSize: 3 }])
  defer(() => fake.close())
  const client = await acp(defer, { AGENT_COPILOT_ACP_COMMAND: fake.command, AGENT_COPILOT_ACP_ARGS: fake.args.join(' ') })
  const deltas: ModelDelta[] = []
  const res = await client.complete({ messages: [{ role: 'user', content: 'read a.txt' }], tools: [{ name: 'read_file', description: 'Read', parameters: { type: 'object' } }] }, { onDelta: (d) => deltas.push(d) })
  assert.equal(res.content, 'Let me look.')
  assert.equal(res.toolCalls.length, 1)
  assert.ok(res.toolCalls[0]!.id.length > 0)
  assert.deepEqual(JSON.parse(res.toolCalls[0]!.arguments), { path: 'a.txt' })
  const streamed = deltas.map((d) => d.content ?? '').join('')
  assert.ok(!streamed.includes('<tool'), `no markup streamed: ${streamed}`)
  assert.equal(streamed.trim(), 'Let me look.')
  assert.deepEqual(fake.permissions(), [{ outcome: { outcome: 'cancelled' } }])
})
