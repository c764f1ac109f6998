// Through the real runtime: the model edits a file with write_file (tools-file), checkpoints
// snapshots before it, and /rollback 1 in that conversation restores it; the rollback is undoable.
import assert from 'node:assert/strict'
import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { RUNTIME_SERVICE, type AgentRuntime, type SlashContext } from 'agent/sdk'
import { createTestKernel, startScriptedModel } from 'agent/sdk/testing'
import { tempDir } from '../../helpers/temp.ts'

test('a write_file edit made by the model is rolled back by /rollback 1, and the rollback undone', async (t) => {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const k = await createTestKernel({
    builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'tools-file', 'checkpoints'],
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-ckpt' },
  })
  t.after(() => k.close())
  const work = realpathSync(tempDir(t, 'agent-ckpt-rt-'))
  writeFileSync(join(work, 'app.txt'), 'version 1\n')
  model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'app.txt', content: 'version 2\n' } }] }, { text: 'Edited.' })
  const result = await k.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'bump the version', cwd: work })
  assert.equal(result.answer, 'Edited.')
  assert.equal(readFileSync(join(work, 'app.txt'), 'utf8'), 'version 2\n')

  const rollback = async (args: string) => {
    const replies: string[] = []
    const ctx: SlashContext = { args, invokedAs: 'rollback', surface: 'cli', reply: (text) => void replies.push(text), chat: { sessionId: result.sessionId } as never }
    await (k.kernel.registries.commands.get('rollback') as { slash: (c: SlashContext) => Promise<void> }).slash(ctx)
    return replies.join('\n')
  }
  assert.match(await rollback(''), /1\. [0-9a-f]{8} .*before write_file: app\.txt/)
  assert.match(await rollback('1'), /^Restored/)
  assert.equal(readFileSync(join(work, 'app.txt'), 'utf8'), 'version 1\n')
  assert.match(await rollback('1'), /^Restored/)
  assert.equal(readFileSync(join(work, 'app.txt'), 'utf8'), 'version 2\n')
})
