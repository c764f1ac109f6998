// The model resolver against real provider extensions and loopback fakes: selection by request,
// environment, config and auto-detection; every /model argument form; aliases; invalid models
// rejected with nothing changed; bare `custom` auto-detection; fallback_model; auxiliary overrides.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AgentError, defineExtension, type ModelClient, type ModelsService } from 'agent/sdk'
import { createTestKernel, startScriptedModel, type ScriptedModelServer, type TestKernel } from 'agent/sdk/testing'

const BUILTINS = ['provider-openai-compat', 'model-resolver']
const FAST = { retries: 1, retry_base_delay_ms: 5, retry_max_delay_ms: 10 }

async function kernel(t: any, options: { env?: Record<string, string>; config?: Record<string, unknown>; extensions?: any[] } = {}): Promise<{ tk: TestKernel; models: ModelsService }> {
  const config = { ...options.config, extensions: { 'model-resolver': FAST, ...(options.config?.extensions as object) } }
  const tk = await createTestKernel({ builtins: BUILTINS, env: options.env ?? {}, config, extensions: options.extensions })
  t.after(() => tk.close())
  return { tk, models: tk.kernel.services.require<ModelsService>('models') }
}

async function fake(t: any, models = ['scripted-model', 'other-model']): Promise<ScriptedModelServer> {
  const server = await startScriptedModel({ models })
  t.after(() => server.close())
  return server
}

async function rejects(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<AgentError> {
  try {
    await promise
  } catch (error) {
    assert.ok(AgentError.isInstance(error), String(error))
    assert.equal(error.code, code, error.message)
    assert.match(error.message, pattern)
    assert.ok(!error.message.includes('\n'))
    return error
  }
  assert.fail('expected a rejection')
}

const chatCalls = (s: ScriptedModelServer) => s.requests.filter((r) => r.path.endsWith('/chat/completions'))

test('every /model argument form parses; aliases resolve to canonical names', async (t) => {
  const { models } = await kernel(t, { config: { custom_providers: [{ name: 'local', base_url: 'http://127.0.0.1:1/v1' }] } })
  assert.deepEqual(models.parseModelArg('gpt-4o'), { model: 'gpt-4o' })
  assert.deepEqual(models.parseModelArg('openrouter:anthropic/claude-sonnet-4.5'), { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' })
  assert.deepEqual(models.parseModelArg('glm:glm-4.6'), { provider: 'zai', model: 'glm-4.6' })
  assert.deepEqual(models.parseModelArg('Kimi:kimi-k2'), { provider: 'kimi-coding', model: 'kimi-k2' })
  assert.deepEqual(models.parseModelArg('kilo-gateway:x/y'), { provider: 'kilocode', model: 'x/y' })
  assert.deepEqual(models.parseModelArg('custom'), { provider: 'custom' })
  assert.deepEqual(models.parseModelArg('custom:llama3:8b'), { provider: 'custom', model: 'llama3:8b' })
  assert.deepEqual(models.parseModelArg('custom:local'), { provider: 'custom', customName: 'local' })
  assert.deepEqual(models.parseModelArg('custom:local:qwen3'), { provider: 'custom', customName: 'local', model: 'qwen3' })
  assert.deepEqual(models.parseModelArg('ollama:llama3'), { provider: 'custom', model: 'llama3' })
  assert.deepEqual(models.parseModelArg('meta/llama-3:free'), { model: 'meta/llama-3:free' })
  assert.deepEqual(models.parseModelArg('openrouter'), { provider: 'openrouter' })
  await rejects(Promise.resolve().then(() => models.parseModelArg('  ')), 'E_USAGE', /no model given/)
  await rejects(Promise.resolve().then(() => models.parseModelArg('two words')), 'E_USAGE', /invalid model name/)
  assert.equal(models.canonical('Z.AI'), 'zai')
  assert.equal(models.canonical('vercel'), 'ai-gateway')
  assert.equal(models.canonical('dashscope'), 'alibaba')
  assert.equal(models.canonical('minimax-china'), 'minimax-cn')
  assert.equal(models.canonical('nope'), undefined)
})

test('AGENT_INFERENCE_PROVIDER and --provider accept names and aliases; unknown names are usage errors', async (t) => {
  const { models } = await kernel(t, { env: { AGENT_INFERENCE_PROVIDER: 'moonshot', KIMI_API_KEY: 'kimi-key-123456' } })
  assert.equal(models.select().provider, 'kimi-coding')
  assert.equal(models.select().source, 'env')
  assert.equal(models.select({ provider: 'z-ai' }).provider, 'zai')
  assert.equal(models.select({ provider: 'z-ai' }).source, 'request')
  await rejects(Promise.resolve().then(() => models.select({ provider: 'nosuch' })), 'E_USAGE', /unknown provider "nosuch" \(known: .*openrouter/)
})

test('nothing configured: one line saying how to configure a provider', async (t) => {
  const { models } = await kernel(t)
  await rejects(models.resolve(), 'E_PROVIDER', /no model provider configured: run `agent model`/)
})

test('a provider without its key says how to set it', async (t) => {
  const { models } = await kernel(t, { env: { AGENT_INFERENCE_PROVIDER: 'kimi' } })
  await rejects(models.resolve(), 'E_PROVIDER', /kimi-coding: no API key: .*agent config set KIMI_API_KEY/)
})

test('auto-detection follows the credentials present', async (t) => {
  const server = await fake(t)
  const a = await kernel(t, { env: { OPENROUTER_API_KEY: 'sk-or-1234567890' } })
  assert.deepEqual([a.models.select().provider, a.models.select().source], ['openrouter', 'auto'])
  const b = await kernel(t, { env: { OPENAI_BASE_URL: server.url, OPENROUTER_API_KEY: 'sk-or-1234567890' } })
  assert.equal(b.models.select().provider, 'custom')
  // A GitHub token alone never selects a provider by itself.
  const c = await kernel(t, { env: { GH_TOKEN: 'gho_abcdefghijklmnop' } })
  assert.throws(() => c.models.select(), /no model provider configured/)
})

test('config model.provider/base_url/default/api_key reach the custom endpoint', async (t) => {
  const server = await fake(t)
  const { models } = await kernel(t, { config: { model: { provider: 'custom', base_url: server.url, default: 'other-model', api_key: 'cfg-key-123456', context_length: 32768 } } })
  const client = await models.resolve()
  assert.deepEqual([client.provider, client.model, client.contextLength], ['custom', 'other-model', 32768])
  await client.complete({ messages: [{ role: 'user', content: 'hi' }] })
  const sent = chatCalls(server)[0]!
  assert.equal(sent.body.model, 'other-model')
  assert.equal(sent.headers.authorization, 'Bearer cfg-key-123456')
})

test('direct providers read <PROVIDER>_API_KEY and <PROVIDER>_BASE_URL', async (t) => {
  const server = await fake(t)
  const { models } = await kernel(t, { env: { AGENT_INFERENCE_PROVIDER: 'minimax-cn', MINIMAX_CN_API_KEY: 'mm-key-1234567', MINIMAX_CN_BASE_URL: server.url } })
  const client = await models.resolve()
  assert.equal(client.provider, 'minimax-cn')
  await client.complete({ messages: [{ role: 'user', content: 'hi' }] })
  assert.equal(chatCalls(server)[0]!.headers.authorization, 'Bearer mm-key-1234567')
})

test('named custom endpoints: custom:<name> and custom:<name>:<model>', async (t) => {
  const server = await fake(t, ['local-a', 'local-b'])
  const { models } = await kernel(t, { config: { model: { provider: 'custom:lab' }, custom_providers: [{ name: 'lab', base_url: server.url, api_key: 'lab-key-123456', model: 'local-b' }] } })
  const client = await models.resolve()
  assert.deepEqual([client.provider, client.model], ['custom', 'local-b'])
  assert.equal(models.select().customName, 'lab')
  await client.complete({ messages: [{ role: 'user', content: 'hi' }] })
  assert.equal(chatCalls(server)[0]!.headers.authorization, 'Bearer lab-key-123456')
  const picked = await models.validate('custom:lab:local-a')
  assert.deepEqual([picked.provider, picked.customName, picked.model, picked.baseUrl], ['custom', 'lab', 'local-a', server.url])
  await rejects(models.resolve({ provider: 'custom:nope' }), 'E_USAGE', /no custom provider named "nope" .*configured: lab/)
})

test('bare custom auto-detects the served model from the endpoint list', async (t) => {
  const server = await fake(t, ['served-7b'])
  const { models } = await kernel(t, { env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: server.url } })
  const client = await models.resolve()
  assert.equal(client.model, 'served-7b')
  const picked = await models.validate('custom')
  assert.deepEqual([picked.provider, picked.model], ['custom', 'served-7b'])
  assert.ok(server.requests.some((r) => r.method === 'GET' && r.path.endsWith('/models')))
})

test('an invalid /model is rejected with a hint and nothing changes; a valid one is returned', async (t) => {
  const server = await fake(t)
  const { tk, models } = await kernel(t, { config: { model: { provider: 'custom', base_url: server.url, default: 'scripted-model' } } })
  const configPath = join(tk.home, 'config.yaml')
  const before = readFileSync(configPath, 'utf8')
  const error = await rejects(models.validate('scripted-modl'), 'E_USAGE', /unknown model "scripted-modl" for custom/)
  assert.match(error.message, /model unchanged; see \/provider/)
  await rejects(models.validate('openrouter:some/model'), 'E_PROVIDER', /openrouter: no API key.*model unchanged/)
  assert.equal(readFileSync(configPath, 'utf8'), before)
  assert.equal(models.select().model, 'scripted-model')
  const ok = await models.validate('other-model')
  assert.deepEqual([ok.provider, ok.model], ['custom', 'other-model'])
  assert.equal(models.select().model, 'scripted-model', 'validate never applies the change')
})

test('an unreachable endpoint makes /model validation fail in one line', async (t) => {
  const { models } = await kernel(t, { env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: 'http://127.0.0.1:39998/v1', AGENT_MODEL: 'm' } })
  await rejects(models.validate('other'), 'E_PROVIDER', /cannot check model "other": custom: cannot reach http:\/\/127\.0\.0\.1:39998\/v1: connection refused/)
})

test('fallback_model takes over when the primary keeps failing, and stays', async (t) => {
  const primary = await fake(t)
  const backup = await fake(t, ['backup-model'])
  const { models } = await kernel(t, {
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: primary.url, AGENT_MODEL: 'scripted-model', OPENROUTER_API_KEY: 'sk-or-backup-1234', OPENROUTER_BASE_URL: backup.url },
    config: { fallback_model: { provider: 'openrouter', model: 'backup-model' } },
  })
  primary.respond(() => ({ status: 500, error: 'primary down' }))
  const client = await models.resolve()
  assert.equal(client.provider, 'custom')
  const res = await client.complete({ messages: [{ role: 'user', content: 'hello' }] })
  assert.equal(res.content, 'echo: hello')
  assert.deepEqual([client.provider, client.model], ['openrouter', 'backup-model'])
  assert.equal(chatCalls(backup)[0]!.body.model, 'backup-model')
  const primaryCalls = chatCalls(primary).length
  await client.complete({ messages: [{ role: 'user', content: 'again' }] })
  assert.equal(chatCalls(primary).length, primaryCalls, 'the primary is not retried after the switch')
})

test('fallback_model covers a primary that cannot be built; no fallback means the primary error', async (t) => {
  const backup = await fake(t, ['b'])
  const { models } = await kernel(t, { env: { AGENT_INFERENCE_PROVIDER: 'openrouter' }, config: { fallback_model: [{ provider: 'custom', base_url: backup.url, model: 'b' }] } })
  const client = await models.resolve()
  assert.deepEqual([client.provider, client.model], ['custom', 'b'])
  // fallback_model is config-only: an environment variable of that name is ignored.
  const plain = await kernel(t, { env: { AGENT_INFERENCE_PROVIDER: 'openrouter', FALLBACK_MODEL: 'custom', AGENT_FALLBACK_MODEL: 'custom' } })
  await rejects(plain.models.resolve(), 'E_PROVIDER', /^openrouter: no API key/)
})

test('fallback chain exhausted: the primary error and each fallback failure in one line', async (t) => {
  const { models } = await kernel(t, { env: { AGENT_INFERENCE_PROVIDER: 'openrouter' }, config: { fallback_model: { provider: 'zai', model: 'glm-4.6' } } })
  await rejects(models.resolve(), 'E_PROVIDER', /^openrouter: no API key.*; fallback zai:glm-4\.6: zai: no API key/)
})

test('auxiliary.<task> overrides: direct endpoint, other provider, or auto (the main model)', async (t) => {
  const main = await fake(t)
  const aux = await fake(t, ['summary-model'])
  const router = await fake(t, ['title-model'])
  const { models } = await kernel(t, {
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: main.url, AGENT_MODEL: 'scripted-model', OPENROUTER_API_KEY: 'sk-or-aux-123456', OPENROUTER_BASE_URL: router.url },
    config: {
      auxiliary: {
        compression: { base_url: aux.url, api_key: 'aux-key-123456', model: 'summary-model' },
        title_generation: { provider: 'openrouter', model: 'title-model' },
        approval: { provider: 'auto' },
      },
    },
  })
  const compression = await models.resolve({ task: 'compression' })
  assert.deepEqual([compression.provider, compression.model], ['custom', 'summary-model'])
  await compression.complete({ messages: [{ role: 'user', content: 'summarise' }] })
  assert.equal(chatCalls(aux)[0]!.headers.authorization, 'Bearer aux-key-123456')
  assert.equal(models.select({ task: 'compression' }).source, 'auxiliary')
  const title = await models.resolve({ task: 'title_generation' })
  assert.deepEqual([title.provider, title.model], ['openrouter', 'title-model'])
  const approval = await models.resolve({ task: 'approval' })
  assert.deepEqual([approval.provider, approval.model], ['custom', 'scripted-model'])
  const unknownTask = await models.resolve({ task: 'vision' })
  assert.equal(unknownTask.provider, 'custom')
  assert.equal(chatCalls(main).length, 0)
})

test('AGENT_API_TIMEOUT: 900 s by default, seconds when set, default when invalid', async (t) => {
  assert.equal((await kernel(t)).models.timeoutMs(), 900_000)
  assert.equal((await kernel(t, { env: { AGENT_API_TIMEOUT: '30' } })).models.timeoutMs(), 30_000)
  assert.equal((await kernel(t, { env: { AGENT_API_TIMEOUT: 'soon' } })).models.timeoutMs(), 900_000)
})

test('another extension may answer resolveModel first; providers() reports credentials', async (t) => {
  const stub: ModelClient = { provider: 'router', model: 'routed', complete: async () => ({ content: 'routed', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }) }
  const router = defineExtension({
    name: 'test-router',
    setup(api) {
      api.hooks.resolveModel.tap((request) => (request.task === 'routed' ? stub : undefined))
    },
  })
  const { models } = await kernel(t, { env: { OPENROUTER_API_KEY: 'sk-or-1234567890' }, extensions: [router] })
  assert.equal(await models.resolve({ task: 'routed' }), stub)
  assert.equal((await models.resolve()).provider, 'openrouter')
  const list = models.providers()
  const byName = Object.fromEntries(list.map((p) => [p.name, p]))
  assert.equal(byName.openrouter!.configured, true)
  assert.match(String(byName.zai!.configured), /GLM_API_KEY/)
  assert.ok(byName.custom!.aliases.includes('ollama'))
  assert.equal(byName.openrouter!.owner, 'provider-openai-compat')
})

test('a client is reused between runs until config or .env changes, and a failed build is not kept', async (t) => {
  const server = await fake(t)
  const { tk, models } = await kernel(t, { config: { model: { provider: 'custom', base_url: server.url, default: 'scripted-model' } } })
  const first = await models.resolve()
  assert.equal(await models.resolve(), first, 'the same settings give the client built a moment ago')
  assert.notEqual(await models.resolve({ model: 'other-model' }), first, 'another request is its own entry')

  // A config change is seen by the very next resolution (no waiting out a cache).
  await tk.kernel.settings.set('model.default', 'other-model')
  const changed = await models.resolve()
  assert.equal(changed.model, 'other-model')

  // So is a key written to .env.
  await tk.kernel.settings.set('model.api_key', undefined)
  await tk.kernel.settings.setEnv('OPENAI_API_KEY', 'env-key-98765432')
  await (await models.resolve()).complete({ messages: [{ role: 'user', content: 'hi' }] })
  assert.equal(chatCalls(server).at(-1)!.headers.authorization, 'Bearer env-key-98765432')

  // A build that fails is tried again next time, not answered from memory.
  await tk.kernel.settings.set('model.base_url', undefined)
  await rejects(models.resolve(), 'E_PROVIDER', /no endpoint configured/)
  await tk.kernel.settings.set('model.base_url', server.url)
  assert.equal((await models.resolve()).model, 'other-model')
})

test('a provider loaded again or removed: the clients built by the old one are not reused', async (t) => {
  // A provider extension that stamps its clients with its own version, as a hot reload would replace it.
  const provider = (version: number) =>
    defineExtension({
      name: 'test-provider',
      setup(api) {
        api.providers.register({
          specificationVersion: 1,
          name: 'stamped',
          create: ({ model }) => ({ provider: 'stamped', model: `${model}@v${version}`, complete: async () => ({ content: `v${version}`, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }) }),
        })
      },
    })
  const { tk, models } = await kernel(t, { extensions: [provider(1)] })
  const first = await models.resolve({ provider: 'stamped', model: 'm' })
  assert.equal(first.model, 'm@v1')
  assert.equal(await models.resolve({ provider: 'stamped', model: 'm' }), first, 'kept while the provider stays')

  await tk.kernel.unload('test-provider')
  await rejects(models.resolve({ provider: 'stamped', model: 'm' }), 'E_USAGE', /stamped/)

  await tk.kernel.add({ definition: provider(2) })
  const second = await models.resolve({ provider: 'stamped', model: 'm' })
  assert.equal(second.model, 'm@v2', 'the new version builds the client, not a memory of the old one')
  assert.equal((await second.complete({ messages: [{ role: 'user', content: 'hi' }] })).content, 'v2')
})
