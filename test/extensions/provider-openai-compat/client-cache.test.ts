// Built clients are reused: a model is resolved for every run, so the same configuration must give
// the same client (no openai client built per run); any change of model, key or endpoint gives a
// new one.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MODELS_SERVICE, type ModelsService } from 'agent/sdk'
import { createTestKernel, startScriptedModel } from 'agent/sdk/testing'

test('one client per configuration, shared by runs; another model, key or endpoint gets its own', async (t) => {
  const model = await startScriptedModel({ respond: () => ({ text: 'hi' }) })
  t.after(() => model.close())
  const other = await startScriptedModel({ respond: () => ({ text: 'from the other endpoint' }) })
  t.after(() => other.close())
  const tk = await createTestKernel({
    builtins: ['model-resolver', 'provider-openai-compat'],
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'key-one' },
    config: { model: { default: 'first' } },
  })
  t.after(() => tk.close())
  const models = tk.kernel.services.require<ModelsService>(MODELS_SERVICE)
  const [a, b] = await Promise.all([models.resolve(), models.resolve()])
  assert.equal(a, b, 'concurrent resolves share one client')
  assert.equal(await models.resolve(), a, 'and later ones too')
  assert.equal((await a.complete({ messages: [{ role: 'user', content: 'x' }] })).content, 'hi')

  const second = await models.resolve({ model: 'second' })
  assert.notEqual(second, a)
  assert.equal(second.model, 'second')
  assert.equal(await models.resolve({ model: 'second' }), second)
  const elsewhere = await models.resolve({ provider: 'custom', model: 'first', baseUrl: other.url })
  assert.notEqual(elsewhere, a)
  assert.equal((await elsewhere.complete({ messages: [{ role: 'user', content: 'x' }] })).content, 'from the other endpoint')
  const otherKey = await models.resolve({ provider: 'custom', model: 'first', baseUrl: model.url, apiKey: 'key-two' })
  assert.notEqual(otherKey, a)
  await otherKey.complete({ messages: [{ role: 'user', content: 'x' }] })
  assert.equal(model.requests.at(-1)!.headers.authorization, 'Bearer key-two')
})
