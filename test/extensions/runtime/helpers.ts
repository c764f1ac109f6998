// A kernel with the runtime, sessions, state.db, the model resolver and the OpenAI-compatible
// provider, pointed at a scripted model on loopback; plus small tool extensions for loop tests.

import type { TestContext } from 'node:test'
import { RUNTIME_SERVICE, SESSIONS_SERVICE, defineExtension, type ExtensionDefinition, type RuntimeService, type SessionStore, type ToolDefinition } from 'agent/sdk'
import { createTestKernel, startScriptedModel, type ScriptedModelOptions, type ScriptedModelServer, type TestKernel } from 'agent/sdk/testing'

export const RUNTIME_BUILTINS = ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat']

export interface RuntimeFixture {
  tk: TestKernel
  model: ScriptedModelServer
  runtime: RuntimeService
  sessions: SessionStore
}

export async function runtimeFixture(
  t: TestContext,
  options: { model?: ScriptedModelOptions; extensions?: ExtensionDefinition<any>[]; config?: Record<string, unknown>; env?: Record<string, string>; builtins?: string[] } = {},
): Promise<RuntimeFixture> {
  const model = await startScriptedModel(options.model)
  t.after(() => model.close())
  const tk = await createTestKernel({
    builtins: options.builtins ?? RUNTIME_BUILTINS,
    extensions: options.extensions,
    config: options.config,
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, ...options.env },
  })
  t.after(() => tk.close())
  for (const info of tk.kernel.extensions()) if (info.state === 'failed') throw new Error(`extension ${info.name} failed: ${info.reason}`)
  return { tk, model, runtime: tk.kernel.services.require<RuntimeService>(RUNTIME_SERVICE), sessions: tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE) }
}

/** One extension registering the given tools. */
export function toolsExtension(name: string, tools: ToolDefinition[]): ExtensionDefinition {
  return defineExtension({
    name,
    setup(api) {
      for (const tool of tools) api.tools.register(tool)
    },
  })
}

/** The messages of the i-th chat completions request the model received. */
export function sentMessages(model: ScriptedModelServer, index: number): any[] {
  const chat = model.requests.filter((r) => r.path.endsWith('/chat/completions'))
  return chat[index]?.body?.messages ?? []
}

export function chatRequests(model: ScriptedModelServer) {
  return model.requests.filter((r) => r.path.endsWith('/chat/completions'))
}
