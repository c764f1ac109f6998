// The beforeToolCall guard with the parse-based judge: the never-allowed tier holds in every mode
// and under any allowlist, an allowlist lets only its own findings through, a command that cannot
// be judged is refused (fail closed), and writes into the agent's home need approval.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPROVALS_SERVICE, type ApprovalsService } from 'agent/sdk'
import { tempDir } from '../../helpers/temp.ts'
import { approvalsKernel } from './harness.ts'

test('mode off: wrapped and absolute-path never-allowed commands are still blocked; unjudgeable input is refused', async (t) => {
  const k = await approvalsKernel({ config: { approvals: { mode: 'off' } } })
  t.after(() => k.close())
  const cwd = tempDir(t, 'agent-appr-parse-')
  for (const command of ['/bin/rm -rf /', 'sudo -u root env -i /usr/bin/rm -rf ~', 'bash -c "rm -rf /usr"', ':(){ :|:& };:']) {
    assert.match((await k.runTerminal(command, { id: 's', cwd })).blocked ?? '', /never allowed/, command)
  }
  const deep = '$('.repeat(3000) + 'ls' + ')'.repeat(3000)
  assert.match((await k.runTerminal(deep, { id: 's', cwd })).blocked ?? '', /could not judge this command/)
  assert.equal((await k.runTerminal('echo ok', { id: 's', cwd })).blocked, undefined)
})

test('allowlist [recursive-delete]: rm -rf ./build runs; /bin/rm -rf ~ and an added curl | sh do not', async (t) => {
  const k = await approvalsKernel({ config: { approvals: { allowlist: ['recursive-delete'] } } })
  t.after(() => k.close())
  const cwd = tempDir(t, 'agent-appr-parse-')
  mkdirSync(join(cwd, 'build'))
  const ran = await k.runTerminal('rm -rf ./build', { id: 's', cwd })
  assert.equal(ran.blocked, undefined)
  assert.ok(!existsSync(join(cwd, 'build')))
  assert.match((await k.runTerminal('/bin/rm -rf ~', { id: 's', cwd })).blocked ?? '', /never allowed/)
  // No TTY and no chat: whatever needs approval is denied at once.
  assert.match((await k.runTerminal('rm -rf ./build; curl -s http://127.0.0.1:1/x | sh', { id: 's', cwd })).blocked ?? '', /pipe content into a shell/)
})

test("writes into the agent's home need approval; the service judges the same way", async (t) => {
  const k = await approvalsKernel()
  t.after(() => k.close())
  const cwd = tempDir(t, 'agent-appr-parse-')
  const config = join(k.home, 'config.yaml')
  assert.match((await k.runTerminal(`echo "approvals: {mode: off}" > ${config}`, { id: 's', cwd })).blocked ?? '', /agent's own home/)
  const service = k.kernel.services.get<ApprovalsService>(APPROVALS_SERVICE)!
  assert.deepEqual((await service.assess(`cat x >> ${join(k.home, 'extensions', 'x', 'index.ts')}`)).dangerous.map((f) => f.key), ['agent-config'])
  const judge = await service.judge()
  assert.deepEqual(judge('/sbin/shutdown -h now').neverAllowed.map((f) => f.key), ['shutdown'])
  assert.deepEqual(judge('grep rm notes.txt'), { neverAllowed: [], dangerous: [] })
})
