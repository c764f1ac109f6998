// Through the real runtime: with terminal.persistent_shell, a `cd` in one model turn holds in the next.
import assert from 'node:assert/strict'
import { mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { RUNTIME_SERVICE, type AgentRuntime } from 'agent/sdk'
import { createTestKernel, startScriptedModel } from 'agent/sdk/testing'
import { tempDir } from '../../helpers/temp.ts'

test('persistent shell keeps cd across the model’s tool calls', async (t) => {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const k = await createTestKernel({
    builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'tools-terminal'],
    config: { terminal: { persistent_shell: true } },
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-term' },
  })
  t.after(() => k.close())
  const work = realpathSync(tempDir(t, 'agent-term-rt-'))
  mkdirSync(join(work, 'nested'))
  model.enqueue(
    { toolCalls: [{ name: 'terminal', arguments: { command: 'cd nested && export MARK=kept' } }] },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'pwd; echo $MARK' } }] },
    { text: 'done' },
  )
  const result = await k.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'go', cwd: work })
  assert.equal(result.answer, 'done')
  assert.deepEqual(result.toolTrace.map((e) => e.status), ['ok', 'ok'])
  const last = model.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body.messages.filter((m: any) => m.role === 'tool').at(-1)
  assert.equal(JSON.parse(last.content).output.trim(), `${join(work, 'nested')}\nkept`)
})
