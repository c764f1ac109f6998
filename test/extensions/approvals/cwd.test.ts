// The judge is given the directory the terminal really runs the command in: the call's `workdir`
// (relative to `terminal.cwd` or the session's), not only the session's cwd.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { tempDir } from '../../helpers/temp.ts'
import { approvalsKernel } from './harness.ts'

const chat = { platform: 'fakechat', chatId: 'room-cwd', userId: 'alice', chatType: 'dm' as const }

test("a relative write is judged in the call's workdir (the agent's home here), not the session's cwd", async (t) => {
  const k = await approvalsKernel()
  t.after(() => k.close())
  const session = tempDir(t, 'agent-appr-cwd-')
  const running = k.runTool('terminal', { command: 'echo "# harmless" >> config.yaml', workdir: k.home }, { id: 'sess-cwd', cwd: session, source: chat })
  const [request] = await k.messages(1)
  assert.match(request!.text, /Approval needed: write into the agent's own home/)
  await k.slash('/deny', chat, 'sess-cwd')
  assert.ok((await running).blocked)
})

test('a relative workdir resolves against the session cwd; an ordinary relative write there runs', async (t) => {
  const k = await approvalsKernel()
  t.after(() => k.close())
  const session = tempDir(t, 'agent-appr-cwd-')
  mkdirSync(join(session, 'sub'))
  const outcome = await k.runTool('terminal', { command: 'echo ok > out.txt', workdir: 'sub' }, { id: 'sess-cwd2', cwd: session, source: chat })
  assert.equal(outcome.blocked, undefined)
  assert.equal(outcome.result.exit_code, 0)
})
