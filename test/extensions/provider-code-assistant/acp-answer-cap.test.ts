// The ACP shim caps what its agent subprocess answers like every provider (MAX_ANSWER_BYTES;
// AGENT_API_MAX_ANSWER_MB): endless message and thought chunks, and one line that never ends, each
// fail the call in one clear line, not retried, and the process is ended. Look-alikes come through
// whole: an answer just under the cap in many chunks or on one line, and one past a lower cap when
// the cap is the default.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test, type TestContext } from 'node:test'
import { AgentError, type ModelDelta, type ModelsService } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { tempDir } from '../../helpers/temp.ts'
import { processAlive, until } from '../../helpers/until.ts'
import { MiB } from '../provider-openai-compat/hostile-endpoints.ts'

const AGENT = fileURLToPath(new URL('./hostile-acp-agent.mjs', import.meta.url))
const BUILTINS = ['provider-openai-compat', 'provider-code-assistant', 'model-resolver']
const hi = [{ role: 'user' as const, content: 'hi' }]

/** The copilot-acp client of a kernel whose agent is the hostile one in `mode`; the pids it started. */
async function hostile(t: TestContext, mode: string, options: { bytes?: number; capMb?: string } = {}) {
  const dir = tempDir(t, 'hostile-acp-')
  const env: Record<string, string> = {
    AGENT_INFERENCE_PROVIDER: 'copilot-acp',
    AGENT_COPILOT_ACP_COMMAND: process.execPath,
    AGENT_COPILOT_ACP_ARGS: `"${AGENT}" "${dir}" ${mode} ${options.bytes ?? 0}`,
    // Without the cap the call would run on to this, failing with another message.
    AGENT_API_TIMEOUT: '30',
  }
  if (options.capMb) env.AGENT_API_MAX_ANSWER_MB = options.capMb
  const tk = await createTestKernel({ builtins: BUILTINS, env, config: { extensions: { 'model-resolver': { retries: 2, retry_base_delay_ms: 1 } } } })
  t.after(() => tk.close())
  const model = await tk.kernel.services.require<ModelsService>('models').resolve()
  const pids = () => readFileSync(join(dir, 'pids'), 'utf8').trim().split('\n').map(Number)
  return { model, pids }
}

test('endless message and thought chunks fail the call past the cap in one line, not retried; the agent is ended', { timeout: 90_000 }, async (t) => {
  const { model, pids } = await hostile(t, 'endless', { capMb: '1' })
  let received = 0
  const onDelta = (d: ModelDelta) => void (received += (d.content?.length ?? 0) + (d.reasoning?.length ?? 0))
  await assert.rejects(model.complete({ messages: hi }, { onDelta }), (error: Error) => {
    assert.ok(AgentError.isInstance(error))
    assert.equal(error.message, "copilot-acp: the endpoint's streamed answer is larger than 1 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return true
  })
  // Text and reasoning count against one cap: what reached the caller stays within it.
  assert.ok(received <= MiB && received > MiB - 128 * 1024, `${received} characters were delivered`)
  assert.equal(pids().length, 1, 'not retried')
  await until(() => !processAlive(pids()[0]!), 20_000, 'the agent process to end')
})

test('a JSON-RPC line that never ends fails the call at the cap in one line; the agent is ended', { timeout: 90_000 }, async (t) => {
  const { model, pids } = await hostile(t, 'line', { capMb: '1' })
  await assert.rejects(model.complete({ messages: hi }), (error: Error) => {
    assert.ok(AgentError.isInstance(error))
    assert.equal(error.message, "copilot-acp: the endpoint's JSON-RPC line is larger than 1 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return true
  })
  assert.equal(pids().length, 1, 'not retried')
  await until(() => !processAlive(pids()[0]!), 20_000, 'the agent process to end')
})

test('look-alikes: just under the cap in many chunks or on one line, and past 1 MiB under the default cap, come through whole', { timeout: 90_000 }, async (t) => {
  const chunks = await hostile(t, 'sized', { bytes: MiB - 64 * 1024, capMb: '1' })
  let streamed = 0
  const answer = await chunks.model.complete({ messages: hi }, { onDelta: (d) => void (streamed += d.content?.length ?? 0) })
  assert.equal(answer.content!.length, MiB - 64 * 1024)
  assert.equal(streamed, MiB - 64 * 1024)
  // One line of 900 KiB of text (its JSON a little longer) under a 1 MiB cap on lines.
  const line = await hostile(t, 'one-line', { bytes: 900 * 1024, capMb: '1' })
  assert.equal((await line.model.complete({ messages: hi })).content!.length, 900 * 1024)
  const byDefault = await hostile(t, 'sized', { bytes: 3 * MiB })
  assert.equal((await byDefault.model.complete({ messages: hi })).content!.length, 3 * MiB)
})
