// Starts the API server the way `agent gateway run` does (kernel ready, then the api_server adapter)
// against a scripted OpenAI-compatible model, and hands tests an official `openai` client.

import type { TestContext } from 'node:test'
import OpenAI from 'openai'
import { defineExtension, type AdapterContext, type ExtensionDefinition, type HttpService, type Services, type StorageBackend } from '../../../sdk/index.ts'
import { createTestKernel, startScriptedModel, testStorage, type ScriptedModelOptions, type ScriptedModelServer, type TestKernel, type TestStorage } from '../../../sdk/testing/index.ts'
import { deferrals } from '../../helpers/teardown.ts'

export interface ServerOptions {
  env?: Record<string, string | undefined>
  config?: Record<string, unknown>
  model?: ScriptedModelOptions
  /** Reuse a model server (restart tests). */
  modelServer?: ScriptedModelServer
  /** Reuse an AGENT_HOME (restart tests). */
  home?: string
  extensions?: ExtensionDefinition<any>[]
  /** Do not start the adapter (tests of a disabled server). */
  noStart?: boolean
  /** Where the state is kept: a backend (a fresh PostgreSQL database for this server), or storage shared with another server (restart tests). Default SQLite. */
  storage?: StorageBackend | TestStorage
}

export interface RunningServer {
  url: string
  model: ScriptedModelServer
  test: TestKernel
  client(apiKey?: string): OpenAI
  /** Stops the kernel (not the model server); idempotent. */
  stop(): Promise<void>
}

/** The real agent behind the server: runtime, sessions, model selection, the OpenAI-compatible provider. */
const BUILTINS = ['http', 'state-db', 'sessions', 'model-resolver', 'provider-openai-compat', 'runtime', 'api-server']

export async function startServer(t: TestContext, options: ServerOptions = {}): Promise<RunningServer> {
  // Torn down last-first: the adapter, the kernel, then the database and the model it used.
  const defer = deferrals(t)
  const model = options.modelServer ?? (await startScriptedModel(options.model))
  if (!options.modelServer) defer(() => model.close())
  const storage = typeof options.storage === 'string' ? await testStorage({ after: defer } as Pick<TestContext, 'after'>, options.storage) : options.storage
  const test = await createTestKernel({
    builtins: BUILTINS,
    extensions: options.extensions ?? [],
    home: options.home,
    config: { ...options.config, ...storage?.config },
    env: {
      API_SERVER_ENABLED: 'true',
      API_SERVER_PORT: '0',
      AGENT_INFERENCE_PROVIDER: 'custom',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-scripted-model-key-000',
      AGENT_MODEL: 'scripted-model',
      ...options.env,
    },
  })
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await test.close()
  }
  defer(stop)
  const failed = test.kernel.extensions().filter((e) => e.state === 'failed')
  if (failed.length) throw new Error(`extensions failed: ${failed.map((e) => `${e.name}: ${e.reason}`).join('; ')}`)
  await test.kernel.start('command')
  let url = ''
  if (!options.noStart) {
    const adapter = test.kernel.registries.adapters.get('api_server')!
    const ctx: AdapterContext = { signal: new AbortController().signal, log: test.kernel.log, settings: test.kernel.settings, services: test.kernel.services as Services }
    await adapter.start(ctx)
    defer(() => adapter.stop())
    url = test.kernel.services.require<HttpService>('http').address('api')!.url
  }
  return {
    url,
    model,
    test,
    client: (apiKey = 'unused') => new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0, timeout: 20_000 }),
    stop,
  }
}

/** fetch with a JSON body; returns status, headers and the parsed body. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed }
}

/** A tool that waits until released or until its run is interrupted. */
export function gateTool() {
  const state = { started: 0, aborted: 0, release: () => {} }
  let open!: () => void
  const released = new Promise<void>((resolve) => (open = resolve))
  state.release = open
  const extension = defineExtension({
    name: 'test-gate',
    setup(api) {
      api.tools.register({
        name: 'wait_gate',
        description: 'Waits',
        parameters: { type: 'object' },
        async execute({ signal }) {
          state.started++
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 10_000)
            const done = () => (clearTimeout(timer), resolve())
            released.then(done)
            signal.addEventListener('abort', () => ((state.aborted++), done()), { once: true })
          })
          return 'done'
        },
      })
    },
  })
  return { state, extension }
}

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  for (let waited = 0; !(await check()); waited += 20) {
    if (waited > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
