// A real `agent gateway run` with the API server on (bearer key, optional CORS origins) in front of the
// scripted model, for the client conformance tests: each test drives it with a real OpenAI client
// library and reads what the model was sent from the scripted model's recorded requests.

import { rmSync } from 'node:fs'
import type { TestContext } from 'node:test'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from '../../sdk/testing/index.ts'
import { startAgent } from '../helpers/agent-process.ts'
import { deferrals } from '../helpers/teardown.ts'

export const API_KEY = 'conformance-key-0123456789abcdef'

export interface ApiGateway {
  /** Base URL of the API server, without /v1. */
  url: string
  model: ScriptedModelServer
  /** The chat messages the model received on its most recent call. */
  lastMessages(): Array<{ role: string; content: unknown }>
}

export async function startApiGateway(t: TestContext, env: Record<string, string> = {}): Promise<ApiGateway> {
  const home = makeTempHome()
  // Stopped in the reverse order of start: the gateway still writes into its home (state.db, its
  // pid file) while it stops.
  const defer = deferrals(t)
  defer(() => rmSync(home, { recursive: true, force: true }))
  const model = await startScriptedModel()
  defer(() => model.close())
  const gateway = startAgent(['gateway', 'run'], {
    home,
    env: {
      API_SERVER_ENABLED: 'true',
      API_SERVER_PORT: '0',
      API_SERVER_KEY: API_KEY,
      AGENT_INFERENCE_PROVIDER: 'custom',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-conformance-model-key-0000',
      AGENT_MODEL: 'scripted-model',
      ...env,
    },
  })
  defer(() => gateway.stop())
  const url = (await gateway.waitFor(/listening: api on (http:\/\/\S+)/, 60_000))[1]!
  await gateway.waitFor(/gateway running/, 60_000)
  return {
    url,
    model,
    lastMessages: () => {
      const last = model.requests.at(-1)
      return ((last?.body as any)?.messages ?? []).filter((m: any) => m.role !== 'system')
    },
  }
}

/** The conversation the model saw, as `role: text` lines (system prompt left out). */
export function transcript(messages: Array<{ role: string; content: unknown }>): string[] {
  return messages.map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`)
}
