// Switching the API server on and off: endpoints exist only when enabled (environment or config),
// the api_server adapter is always listed, a non-loopback bind without a key refuses to start, and
// the real `agent gateway run` serves it.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import OpenAI from 'openai'
import { hermeticEnv, makeTempHome, startScriptedModel } from '../../../sdk/testing/index.ts'
import { startServer } from './harness.ts'
import { deferrals } from '../../helpers/teardown.ts'

const apiEndpoints = (server: Awaited<ReturnType<typeof startServer>>) =>
  server.test.kernel.registries.endpoints
    .list()
    .filter((e) => e.listener === 'api')
    .map((e) => `${e.method} ${e.path}`)
    .sort()

test('disabled by default: the adapter is listed but no endpoint is registered', async (t) => {
  const server = await startServer(t, { env: { API_SERVER_ENABLED: undefined }, noStart: true })
  const adapter = server.test.kernel.registries.adapters.get('api_server')
  assert.ok(adapter)
  assert.equal(adapter.enabled(server.test.kernel.settings), false)
  assert.deepEqual(apiEndpoints(server), [])
})

test('enabled by platforms.api_server.enabled or API_SERVER_ENABLED', async (t) => {
  const byConfig = await startServer(t, { env: { API_SERVER_ENABLED: undefined }, config: { platforms: { api_server: { enabled: true } } }, noStart: true })
  const expected = ['DELETE /v1/responses/:id', 'GET /health', 'GET /v1/health', 'GET /v1/models', 'GET /v1/models/:model', 'GET /v1/responses/:id', 'GET /v1/responses/:id/input_items', 'POST /v1/chat/completions', 'POST /v1/responses', 'POST /v1/responses/:id/cancel']
  assert.deepEqual(apiEndpoints(byConfig), expected)
  assert.equal(byConfig.test.kernel.registries.adapters.get('api_server')!.enabled(byConfig.test.kernel.settings), true)
  const byEnv = await startServer(t, { env: { API_SERVER_ENABLED: 'yes' }, noStart: true })
  assert.deepEqual(apiEndpoints(byEnv), expected)
})

test('binding a non-loopback address without API_SERVER_KEY refuses to start, with a clear message', async (t) => {
  const server = await startServer(t, { env: { API_SERVER_HOST: '0.0.0.0' }, noStart: true })
  const adapter = server.test.kernel.registries.adapters.get('api_server')!
  const ctx = { signal: new AbortController().signal, log: server.test.kernel.log, settings: server.test.kernel.settings, services: server.test.kernel.services as never }
  await assert.rejects(adapter.start(ctx), /refusing to serve the "api" listener on 0\.0\.0\.0.*API_SERVER_KEY/)
})

test('`agent gateway run` starts the api_server adapter and answers the official client', async (t) => {
  const home = makeTempHome()
  const defer = deferrals(t)
  defer(() => rmSync(home, { recursive: true, force: true }))
  const model = await startScriptedModel()
  defer(() => model.close())
  const bin = join(import.meta.dirname, '..', '..', '..', 'kernel', 'bin', 'agent.mjs')
  const child = spawn(process.execPath, [bin, 'gateway', 'run'], {
    env: hermeticEnv(
      {
        API_SERVER_ENABLED: 'true',
        API_SERVER_PORT: '0',
        API_SERVER_MODEL_NAME: 'gw-agent',
        API_SERVER_KEY: 'gateway-test-key-0123456789',
        AGENT_INFERENCE_PROVIDER: 'custom',
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'sk-gateway-model-key-0000',
        AGENT_MODEL: 'scripted-model',
      },
      home,
    ),
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  defer(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  const deadline = Date.now() + 30_000
  let url: string | undefined
  while (!url) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`gateway did not come up:\n${output}`)
    url = /listening: api on (http:\/\/\S+)/.exec(output)?.[1]
    if (!url) await new Promise((r) => setTimeout(r, 50))
  }
  while (!/gateway running/.test(output)) {
    if (Date.now() > deadline) throw new Error(`gateway did not report running:\n${output}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  assert.match(output, /adapters: [^\n]*api_server/)
  assert.equal((await fetch(`${url}/health`)).status, 200)
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'gateway-test-key-0123456789', maxRetries: 0 })
  assert.deepEqual((await client.models.list()).data.map((m) => m.id), ['gw-agent'])
  const completion = await client.chat.completions.create({ model: 'gw-agent', messages: [{ role: 'user', content: 'through the real gateway' }] })
  assert.equal(completion.choices[0]!.message.content, 'echo: through the real gateway')
  assert.ok(completion.usage!.total_tokens > 0)
  const response = await client.responses.create({ model: 'gw-agent', input: 'and a response' })
  assert.equal((await client.responses.retrieve(response.id)).output_text, 'echo: and a response')
  child.kill('SIGINT')
  assert.equal(await exited, 0, output)
})
