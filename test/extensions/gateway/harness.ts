// Runs the real `agent gateway run` in a temporary AGENT_HOME against the scripted model. When the
// real runtime extension is not in the tree yet, a minimal stand-in `runtime` (non-streaming, one
// model call, sessions in memory) is installed as a user extension of that home.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestContext } from 'node:test'
import YAML from 'yaml'
import { startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { startAgent, type RunningAgent } from '../../helpers/agent-process.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
export const REAL_RUNTIME = existsSync(join(ROOT, 'extensions', 'runtime', 'index.ts'))

const STAND_IN = `import { randomUUID } from 'node:crypto'
import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'test-runtime', setup(api) {
  const sessions = new Map()
  api.services.provide('runtime', { async run(request) {
    const sessionId = request.sessionId ?? 'sess_' + randomUUID()
    const history = sessions.get(sessionId) ?? []
    const messages = [...history, { role: 'user', content: request.input }]
    const res = await fetch(api.settings.env('OPENAI_BASE_URL') + '/chat/completions', { method: 'POST', signal: request.signal,
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'scripted-model', messages, skills: request.skills }) })
    if (!res.ok) throw new Error('model answered ' + res.status)
    const body = await res.json()
    const answer = body.choices[0].message.content ?? ''
    sessions.set(sessionId, [...messages, { role: 'assistant', content: answer }])
    return { sessionId, answer, exitReason: 'completed', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, apiCalls: 1, model: 'scripted-model', provider: 'custom', toolTrace: [] }
  } })
} })
`

export interface Gateway {
  home: string
  url: string
  agent: RunningAgent
  model: ScriptedModelServer
  /** User messages the model received, in order. */
  prompts(): string[]
}

export async function startGateway(t: TestContext, options: { config: Record<string, unknown>; env?: Record<string, string>; model?: ScriptedModelServer; home?: string; skills?: string[] }): Promise<Gateway> {
  let agent: RunningAgent | undefined
  // One hook stops the gateway, then removes the home it made: after hooks run in the order they
  // were added, and a home removed first would race a gateway still writing into it (ENOTEMPTY).
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'agent-test-'))
  t.after(async () => {
    await agent?.stop('SIGKILL')
    if (!options.home) rmSync(home, { recursive: true, force: true, maxRetries: 3 })
  })
  const model = options.model ?? (await startScriptedModel())
  if (!options.model) t.after(() => model.close())
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, ...options.config }))
  for (const skill of options.skills ?? []) {
    mkdirSync(join(home, 'skills', skill), { recursive: true })
    writeFileSync(join(home, 'skills', skill, 'SKILL.md'), `---\nname: ${skill}\ndescription: Test skill ${skill}\n---\nAlways answer in one line (${skill}).\n`)
  }
  if (!REAL_RUNTIME) {
    mkdirSync(join(home, 'extensions', 'test-runtime'), { recursive: true })
    writeFileSync(join(home, 'extensions', 'test-runtime', 'index.ts'), STAND_IN)
  }
  const running = startAgent(['gateway', 'run'], {
    home,
    env: { WEBHOOK_PORT: '0', API_SERVER_PORT: '0', AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'test-key', AGENT_MODEL: 'scripted-model', ...options.env },
  })
  agent = running
  const [, url] = await running.waitFor(/listening: webhook on (http:\/\/\S+)/, 30_000)
  await running.waitFor(/gateway running/, 10_000)
  const prompts = () =>
    model.requests
      .filter((r) => r.path.endsWith('/chat/completions'))
      .flatMap((r) => (r.body?.messages ?? []).filter((m: any) => m.role === 'user').slice(-1).map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))))
  return { home, url: url!, agent: running, model, prompts }
}

/** Polls until `check` is true or `ms` pass. */
export async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 25))
  }
  return check()
}
