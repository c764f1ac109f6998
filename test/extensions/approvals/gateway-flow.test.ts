// The manual approval flow in a gateway chat, through the kernel's beforeToolCall hook and the
// registered /approve and /deny commands (the runtime-driven version is in runtime-flow.test.ts).
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { GATEWAY_AUTH_SERVICE } from 'agent/sdk'
import { tempDir } from '../../helpers/temp.ts'
import { approvalsKernel } from './harness.ts'

const chat = { platform: 'fakechat', chatId: 'room-1', userId: 'alice', chatType: 'dm' as const }

function workdir(t: TestContext): string {
  const dir = tempDir(t, 'agent-appr-')
  mkdirSync(join(dir, 'build'))
  return dir
}

test('a dangerous command waits for /approve in the chat, then runs', async (t) => {
  const k = await approvalsKernel()
  t.after(() => k.close())
  const dir = workdir(t)
  const running = k.runTerminal('rm -rf build', { id: 'sess-1', cwd: dir, source: chat })
  const [request] = await k.messages(1)
  assert.equal(request!.chatId, 'room-1')
  assert.match(request!.text, /Approval needed: recursive delete/)
  assert.match(request!.text, /rm -rf build/)
  assert.ok(existsSync(join(dir, 'build')), 'must not run before the answer')
  assert.deepEqual(await k.slash('/approve', chat, 'sess-1'), ['Approved: rm -rf build'])
  const outcome = await running
  assert.equal(outcome.blocked, undefined)
  assert.equal(outcome.result.exit_code, 0)
  assert.ok(!existsSync(join(dir, 'build')))
  assert.deepEqual(await k.slash('/approve', chat, 'sess-1'), ['No command is waiting for approval.'])
})

test('/deny stops it, with the reason passed to the model', async (t) => {
  const k = await approvalsKernel()
  t.after(() => k.close())
  const dir = workdir(t)
  const running = k.runTerminal('rm -rf build', { id: 'sess-2', cwd: dir, source: chat })
  await k.messages(1)
  // Another user of another chat cannot answer it.
  assert.deepEqual(await k.slash('/deny', { ...chat, chatId: 'elsewhere', userId: 'mallory' }), ['No command is waiting for approval.'])
  assert.deepEqual(await k.slash('/deny not now', chat), ['Denied: rm -rf build'])
  const outcome = await running
  assert.match(outcome.blocked!, /did not approve.*not now.*Do not retry/)
  assert.ok(existsSync(join(dir, 'build')))
})

test('no answer before approvals.timeout denies', async (t) => {
  const k = await approvalsKernel({ config: { approvals: { timeout: 0.2 } } })
  t.after(() => k.close())
  const dir = workdir(t)
  const outcome = await k.runTerminal('rm -rf build', { id: 'sess-3', cwd: dir, source: chat })
  assert.match(outcome.blocked!, /no answer within/)
  assert.ok(existsSync(join(dir, 'build')))
})

/** alice is named in the platform's allowlist: she may save approvals to config. */
const named = { builtins: ['state-db', 'gateway-auth'], env: { FAKECHAT_ALLOWED_USERS: 'alice,carol' } }

test('/approve session allows the same kind for the session; /approve always persists to config', async (t) => {
  const k = await approvalsKernel(named)
  t.after(() => k.close())
  const dir = workdir(t)
  mkdirSync(join(dir, 'b2'))
  const first = k.runTerminal('rm -rf build', { id: 'sess-4', cwd: dir, source: chat })
  await k.messages(1)
  assert.deepEqual(await k.slash('/approve session', chat, 'sess-4'), ['Approved (allowed for this session): rm -rf build'])
  assert.equal((await first).blocked, undefined)
  assert.equal((await k.runTerminal('rm -rf b2', { id: 'sess-4', cwd: dir, source: chat })).blocked, undefined)
  assert.equal(k.sent.length, 1, 'no second question in the same session')

  const other = k.runTerminal('git reset --hard', { id: 'sess-5', cwd: dir, source: chat })
  await k.messages(2)
  assert.match((await k.slash('/approve always', chat, 'sess-5'))[0]!, /saved to config/)
  await other
  assert.match(readFileSync(join(k.home, 'config.yaml'), 'utf8'), /allowlist:\s*\n\s*- git-destructive/)
  // A new session is not asked for that kind any more.
  const again = await k.runTerminal('git reset --hard', { id: 'sess-6', cwd: dir, source: chat })
  assert.equal(again.blocked, undefined)
  assert.equal(k.sent.length, 2)
})

test('/approve always from a user the owner did not name is taken as session, and not offered', async (t) => {
  // bob is let in by the allow-all switch; dave by a `*`; neither is named, so neither may save to config.
  for (const [who, env] of [['bob', { FAKECHAT_ALLOW_ALL_USERS: 'true' }], ['dave', { GATEWAY_ALLOWED_USERS: '*' }]] as const) {
    const k = await approvalsKernel({ builtins: ['state-db', 'gateway-auth'], env })
    t.after(() => k.close())
    assert.ok(k.kernel.services.get(GATEWAY_AUTH_SERVICE), 'the refusal comes from the rule, not a missing service')
    const dir = workdir(t)
    const source = { ...chat, userId: who }
    const running = k.runTerminal('git reset --hard', { id: `s-${who}`, cwd: dir, source })
    const [request] = await k.messages(1)
    assert.doesNotMatch(request!.text, /always/, 'not offered to a user who cannot give it')
    const replies = await k.slash('/approve always', source, `s-${who}`)
    assert.match(replies[0]!, /for users named by id in FAKECHAT_ALLOWED_USERS or GATEWAY_ALLOWED_USERS; approved for this session instead/)
    assert.equal(replies[1], 'Approved (allowed for this session): git reset --hard')
    assert.equal((await running).blocked, undefined)
    assert.ok(!existsSync(join(k.home, 'config.yaml')) || !/git-destructive/.test(readFileSync(join(k.home, 'config.yaml'), 'utf8')), 'nothing saved')
    // Still allowed for the rest of this session, asked again in another.
    assert.equal((await k.runTerminal('git reset --hard', { id: `s-${who}`, cwd: dir, source })).blocked, undefined)
    const other = k.runTerminal('git reset --hard', { id: `s2-${who}`, cwd: dir, source })
    await k.messages(2)
    await k.slash('/deny', source, `s2-${who}`)
    assert.match((await other).blocked!, /did not approve/)
  }
})

test('without the gateway-auth service no one may save an approval to config', async (t) => {
  const k = await approvalsKernel()
  t.after(() => k.close())
  const dir = workdir(t)
  const running = k.runTerminal('git reset --hard', { id: 'no-auth', cwd: dir, source: chat })
  await k.messages(1)
  assert.match((await k.slash('/approve always', chat, 'no-auth'))[0]!, /approved for this session instead/)
  await running
  assert.ok(!existsSync(join(k.home, 'config.yaml')) || !/git-destructive/.test(readFileSync(join(k.home, 'config.yaml'), 'utf8')))
})

test('never-allowed commands are blocked in every mode, even off; off runs other dangerous commands', async (t) => {
  const k = await approvalsKernel({ config: { approvals: { mode: 'off' } } })
  t.after(() => k.close())
  const dir = workdir(t)
  const root = await k.runTerminal('rm -rf /', { id: 's', cwd: dir, source: chat })
  assert.match(root.blocked!, /never allowed/)
  assert.equal((await k.runTerminal('rm -rf build', { id: 's', cwd: dir, source: chat })).blocked, undefined)
  assert.equal(k.sent.length, 0)
})

test('CLI without a TTY, unattended platforms and missing delivery all deny at once', async (t) => {
  const k = await approvalsKernel()
  t.after(() => k.close())
  const dir = workdir(t)
  const cli = await k.runTerminal('rm -rf build', { id: 'c1', cwd: dir })
  assert.match(cli.blocked!, /no interactive terminal/)
  const cron = await k.runTerminal('rm -rf build', { id: 'c2', cwd: dir, source: { platform: 'cron' } })
  assert.match(cron.blocked!, /no one to ask on cron/)
  // A surface that owns the terminal answers through extra.approvalPrompt.
  const asked: string[] = []
  const callIds: Array<string | undefined> = []
  const viaPrompt = await k.runTerminal('rm -rf build', { id: 'c3', cwd: dir, extra: { approvalPrompt: async (r: { command: string; callId?: string }) => (asked.push(r.command), callIds.push(r.callId), 'once') } })
  assert.equal(viaPrompt.blocked, undefined)
  assert.deepEqual(asked, ['rm -rf build'])
  assert.match(String(callIds[0]), /^c0\./, 'the request names the tool call waiting for it')
  assert.equal(k.sent.length, 0)
})

test('the approval request names a known secret by its marker; the approved command runs as written', async (t) => {
  const token = 'dep-appr-token-5a6b7c8d9e0f1a2b'
  const k = await approvalsKernel({ dotenv: { DEPLOY_TOKEN: token } })
  t.after(() => k.close())
  const dir = workdir(t)
  const running = k.runTerminal(`rm -rf build && echo ${token} > token.txt`, { id: 'sess-secret', cwd: dir, source: chat })
  const [request] = await k.messages(1)
  assert.ok(!request!.text.includes(token), request!.text)
  assert.match(request!.text, /rm -rf build && echo \[REDACTED:DEPLOY_TOKEN\] > token\.txt/)
  const [approved] = await k.slash('/approve', chat, 'sess-secret')
  assert.ok(!approved!.includes(token), approved)
  assert.equal((await running).result.exit_code, 0)
  assert.equal(readFileSync(join(dir, 'token.txt'), 'utf8'), `${token}\n`)
  // Look-alike: a command without a secret is shown as it is (the first test).
})
