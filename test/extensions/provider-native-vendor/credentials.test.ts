// Native vendor credentials and wire details against the loopback messages-API fake: API key,
// setup token, detected local OAuth credentials, refresh of expired ones in preference to a stale
// environment token (written back 0600), refresh-and-retry on 401, and the request shape.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { AgentError, type ModelsService } from 'agent/sdk'
import { createTestKernel, makeTempHome, startFakeMessagesApi, type FakeMessagesApi, type FakeMessagesApiOptions } from 'agent/sdk/testing'
import { deferrals } from '../../helpers/teardown.ts'

async function setup(t: any, env: Record<string, string>, options: { oauth?: FakeMessagesApiOptions['oauth']; credentials?: unknown } = {}) {
  const fake = await startFakeMessagesApi({ oauth: options.oauth, models: ['claude-fake-1', 'claude-fake-2'] })
  t.after(() => fake.close())
  const userHome = makeTempHome('agent-vendor-home-')
  const defer = deferrals(t)
  defer(() => rmSync(userHome, { recursive: true, force: true }))
  const credPath = join(userHome, '.claude', '.credentials.json')
  if (options.credentials) {
    mkdirSync(join(userHome, '.claude'), { recursive: true })
    writeFileSync(credPath, JSON.stringify(options.credentials), { mode: 0o600 })
  }
  const tk = await createTestKernel({
    builtins: ['provider-native-vendor', 'model-resolver'],
    env: { AGENT_INFERENCE_PROVIDER: 'anthropic', ANTHROPIC_BASE_URL: fake.url, HOME: userHome, ...env },
    config: { extensions: { 'provider-native-vendor': { oauth_token_url: `${fake.url}/v1/oauth/token` }, 'model-resolver': { retries: 1, retry_base_delay_ms: 5 } } },
  })
  defer(() => tk.close())
  return { fake, credPath, models: tk.kernel.services.require<ModelsService>('models') }
}

const messages = (fake: FakeMessagesApi) => fake.requests.filter((r) => r.path === '/v1/messages')
const hi = [{ role: 'user' as const, content: 'hi' }]

test('an API key goes in x-api-key with the API version header', async (t) => {
  const { fake, models } = await setup(t, { ANTHROPIC_API_KEY: 'sk-ant-api03-abcdefghij' })
  await (await models.resolve()).complete({ messages: hi })
  const headers = messages(fake)[0]!.headers
  assert.equal(headers['x-api-key'], 'sk-ant-api03-abcdefghij')
  assert.equal(headers['anthropic-version'], '2023-06-01')
  assert.equal(headers.authorization, undefined)
})

test('a long-lived setup token is sent as a bearer token with the OAuth beta header', async (t) => {
  const { fake, models } = await setup(t, { ANTHROPIC_TOKEN: 'sk-ant-oat01-setup-token-1234' })
  await (await models.resolve()).complete({ messages: hi })
  const headers = messages(fake)[0]!.headers
  assert.equal(headers.authorization, 'Bearer sk-ant-oat01-setup-token-1234')
  assert.match(String(headers['anthropic-beta']), /oauth-2025-04-20/)
  assert.equal(headers['x-api-key'], undefined)
})

test('valid local OAuth credentials are detected and used', async (t) => {
  const { fake, models } = await setup(t, {}, { credentials: { claudeAiOauth: { accessToken: 'sk-ant-oat01-local-abc', refreshToken: 'sk-ant-ort01-r1', expiresAt: Date.now() + 3_600_000 } } })
  await (await models.resolve()).complete({ messages: hi })
  assert.equal(messages(fake)[0]!.headers.authorization, 'Bearer sk-ant-oat01-local-abc')
  assert.equal(fake.requests.filter((r) => r.path === '/v1/oauth/token').length, 0)
})

test('expired local OAuth is refreshed in preference to a stale environment token, and written back 0600', async (t) => {
  const { fake, credPath, models } = await setup(
    t,
    { ANTHROPIC_TOKEN: 'sk-ant-oat01-stale-env-token' },
    { oauth: { accessToken: 'sk-ant-oat01-fresh-xyz', refreshToken: 'sk-ant-ort01-rotated' }, credentials: { claudeAiOauth: { accessToken: 'sk-ant-oat01-old', refreshToken: 'sk-ant-ort01-r1', expiresAt: Date.now() - 1000, scopes: ['user:inference'] }, other: 'kept' } },
  )
  await (await models.resolve()).complete({ messages: hi })
  const refresh = fake.requests.find((r) => r.path === '/v1/oauth/token')!
  assert.deepEqual([refresh.body.grant_type, refresh.body.refresh_token], ['refresh_token', 'sk-ant-ort01-r1'])
  assert.equal(messages(fake)[0]!.headers.authorization, 'Bearer sk-ant-oat01-fresh-xyz')
  const saved = JSON.parse(readFileSync(credPath, 'utf8'))
  assert.equal(saved.claudeAiOauth.accessToken, 'sk-ant-oat01-fresh-xyz')
  assert.equal(saved.claudeAiOauth.refreshToken, 'sk-ant-ort01-rotated')
  assert.deepEqual(saved.claudeAiOauth.scopes, ['user:inference'])
  assert.equal(saved.other, 'kept')
  assert.ok(saved.claudeAiOauth.expiresAt > Date.now())
  assert.equal(statSync(credPath).mode & 0o777, 0o600)
})

test('local credentials without a refresh token yield to the environment token', async (t) => {
  const { fake, models } = await setup(t, { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-env-ok' }, { credentials: { claudeAiOauth: { accessToken: 'sk-ant-oat01-old', expiresAt: Date.now() - 1000 } } })
  await (await models.resolve()).complete({ messages: hi })
  assert.equal(messages(fake)[0]!.headers.authorization, 'Bearer sk-ant-oat01-env-ok')
})

test('a refused local token is refreshed once and the call retried', async (t) => {
  const { fake, models } = await setup(t, {}, { oauth: { accessToken: 'sk-ant-oat01-after-401' }, credentials: { claudeAiOauth: { accessToken: 'sk-ant-oat01-revoked', refreshToken: 'sk-ant-ort01-r1', expiresAt: Date.now() + 3_600_000 } } })
  fake.enqueue({ status: 401, error: 'OAuth token has been revoked' })
  const res = await (await models.resolve()).complete({ messages: hi })
  assert.equal(res.content, 'echo: hi')
  assert.deepEqual(
    messages(fake).map((r) => r.headers.authorization),
    ['Bearer sk-ant-oat01-revoked', 'Bearer sk-ant-oat01-after-401'],
  )
})

test('a failed refresh and missing credentials are one line each, saying what to do', async (t) => {
  const { models } = await setup(t, {}, { oauth: { status: 400 }, credentials: { claudeAiOauth: { accessToken: 'sk-ant-oat01-old', refreshToken: 'sk-ant-ort01-bad', expiresAt: Date.now() - 1000 } } })
  await assert.rejects(models.resolve(), (e: unknown) => AgentError.isInstance(e) && e.code === 'E_PROVIDER' && /refreshing the expired OAuth credentials failed \(HTTP 400 invalid_grant\)/.test(e.message) && !e.message.includes('sk-ant-ort01-bad'))
  const none = await setup(t, {})
  await assert.rejects(none.models.resolve(), /anthropic: no credentials: run `agent model`, or `agent config set ANTHROPIC_API_KEY <key>`/)
})

test('wire shape: system joined, tool results merged into one user turn, images, thinking budget (not mid tool loop)', async (t) => {
  const { fake, models } = await setup(t, { ANTHROPIC_API_KEY: 'sk-ant-api03-abcdefghij' })
  const client = await models.resolve({ model: 'claude-fake-2' })
  await client.complete({
    messages: [
      { role: 'system', content: 'You are helpful.' },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
      { role: 'assistant', content: 'checking', toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: '{"path":"a"}' }, { id: 'toolu_2', name: 'read_file', arguments: '{"path":"b"}' }] },
      { role: 'tool', toolCallId: 'toolu_1', content: 'A' },
      { role: 'tool', toolCallId: 'toolu_2', content: 'B' },
    ],
    reasoningEffort: 'medium',
    temperature: 0.2,
  })
  const body = messages(fake)[0]!.body
  assert.equal(body.model, 'claude-fake-2')
  assert.equal(body.system, 'You are helpful.\n\nBe brief.')
  assert.deepEqual(body.messages.map((m: any) => m.role), ['user', 'assistant', 'user'])
  assert.deepEqual(body.messages[0].content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } })
  assert.deepEqual(body.messages[1].content.map((b: any) => b.type), ['text', 'tool_use', 'tool_use'])
  assert.deepEqual(body.messages[1].content[1].input, { path: 'a' })
  assert.deepEqual(body.messages[2].content.map((b: any) => [b.type, b.tool_use_id, b.content]), [['tool_result', 'toolu_1', 'A'], ['tool_result', 'toolu_2', 'B']])
  // The last assistant turn used tools and its signed thinking is not kept: this continuation runs without thinking.
  assert.equal(body.thinking, undefined)
  assert.equal(body.temperature, 0.2)
  await client.complete({ messages: [{ role: 'user', content: 'think hard' }], reasoningEffort: 'medium', temperature: 0.2 })
  const fresh = messages(fake)[1]!.body
  assert.deepEqual(fresh.thinking, { type: 'enabled', budget_tokens: 8192 })
  assert.ok(fresh.max_tokens > 8192)
  assert.equal(fresh.temperature, undefined, 'thinking needs the default temperature')
})

test('/model validation uses the vendor model list', async (t) => {
  const { models } = await setup(t, { ANTHROPIC_API_KEY: 'sk-ant-api03-abcdefghij' })
  assert.equal((await models.validate('claude:claude-fake-2')).model, 'claude-fake-2')
  await assert.rejects(models.validate('claude-fake-9'), /unknown model "claude-fake-9" for anthropic/)
})
