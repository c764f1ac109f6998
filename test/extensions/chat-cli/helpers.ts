// Shared setup of the chat-cli tests: a scripted model on loopback, a temporary AGENT_HOME and
// project folder, the real `agent` bin pointed at them, and a port nothing listens on.

import { createServer } from 'node:net'
import type { TestContext } from 'node:test'
import { startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { runAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'

export async function setup(t: TestContext, options: Parameters<typeof startScriptedModel>[0] = {}) {
  const model = await startScriptedModel(options)
  t.after(() => model.close())
  const home = tempDir(t, 'agent-home-')
  const project = tempDir(t, 'agent-project-')
  const env = { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }
  const agent = (args: string[], extra: { env?: Record<string, string>; input?: string } = {}) =>
    runAgent(args, { home, cwd: project, env: { ...env, ...extra.env }, input: extra.input, timeoutMs: 60_000 })
  return { model, home, project, agent }
}

export const chatBodies = (model: ScriptedModelServer) => model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body)

/** A loopback port that nothing listens on (bound, then closed): connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
