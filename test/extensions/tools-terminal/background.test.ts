import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { defineExtension, type BackgroundEvent, type MessageSource } from 'agent/sdk'
import { session, tempDir, terminalKernel } from './helpers.ts'

async function runBackground(t: TestContext, level: string | undefined, command: string) {
  const k = await terminalKernel({ env: level ? { AGENT_BACKGROUND_NOTIFICATIONS: level } : {}, config: { terminal: { background_output_interval: 1 } } })
  const progress: string[] = []
  const s = session(tempDir(t), { progress: (text) => progress.push(text) })
  const started = await k.call('terminal', { command, background: true }, s)
  assert.equal(started.status, 'running')
  const waited = await k.call('process', { action: 'wait', process_id: started.process_id, timeout: 10 }, s)
  // Notifications are sent after exit; give the event loop a turn.
  await new Promise((r) => setTimeout(r, 50))
  return { k, progress, waited, started, s }
}

test('background process: exit notification at level all, polled output, exit code', async (t) => {
  const { k, progress, waited } = await runBackground(t, undefined, 'echo working; sleep 0.2; echo finished; exit 3')
  t.after(() => k.close())
  assert.equal(waited.status, 'exited')
  assert.equal(waited.exit_code, 3)
  assert.match(waited.output, /working\nfinished/)
  const exit = progress.find((p) => p.includes('exited with code 3'))
  assert.ok(exit, JSON.stringify(progress))
  assert.match(exit!, /finished/)
})

test('background notification levels: error sends only failures, result only exits, off nothing', async (t) => {
  const ok = await runBackground(t, 'error', 'echo fine')
  t.after(() => ok.k.close())
  assert.deepEqual(ok.progress, [])
  const failed = await runBackground(t, 'error', 'echo bad; exit 2')
  t.after(() => failed.k.close())
  assert.equal(failed.progress.length, 1)
  assert.match(failed.progress[0]!, /exited with code 2/)
  const result = await runBackground(t, 'result', 'echo out; sleep 1.3; echo more')
  t.after(() => result.k.close())
  assert.equal(result.progress.length, 1)
  assert.match(result.progress[0]!, /exited with code 0/)
  const off = await runBackground(t, 'off', 'exit 5')
  t.after(() => off.k.close())
  assert.deepEqual(off.progress, [])
})

test('level all also sends running output; config key background_process_notifications is read', async (t) => {
  const k = await terminalKernel({ config: { background_process_notifications: 'all', terminal: { background_output_interval: 1 } } })
  t.after(() => k.close())
  const progress: string[] = []
  const s = session(tempDir(t), { progress: (text) => progress.push(text) })
  const started = await k.call('terminal', { command: 'echo first; sleep 1.5; echo second', background: true }, s)
  await k.call('process', { action: 'wait', process_id: started.process_id, timeout: 10 }, s)
  await new Promise((r) => setTimeout(r, 50))
  assert.ok(progress.some((p) => p.startsWith(`[${started.process_id}] first`)), JSON.stringify(progress))
  assert.ok(progress.some((p) => p.includes('exited with code 0')))
})

test('chat sessions get notifications through the gateway service; kill ends a process', async (t) => {
  const sent: Array<{ source: MessageSource; event: BackgroundEvent }> = []
  const fakeGateway = defineExtension({
    name: 'fake-gateway',
    setup(api) {
      api.services.provide('gateway', { notifyBackground: async (source: MessageSource, event: BackgroundEvent) => void sent.push({ source, event }) })
    },
  })
  const k = await terminalKernel({ extensions: [fakeGateway] })
  t.after(() => k.close())
  const source = { platform: 'telegram', chatId: '42', userId: 'u1' }
  const s = session(tempDir(t), { source })
  const started = await k.call('terminal', { command: 'sleep 30', background: true }, s)
  const listed = await k.call('process', { action: 'list' }, s)
  assert.equal(listed.processes[0].process_id, started.process_id)
  const killed = await k.call('process', { action: 'kill', process_id: started.process_id }, s)
  assert.equal(killed.killed, true)
  const waited = await k.call('process', { action: 'wait', process_id: started.process_id, timeout: 5 }, s)
  assert.equal(waited.status, 'killed')
  await new Promise((r) => setTimeout(r, 50))
  assert.equal(sent.length, 1)
  assert.deepEqual(sent[0]!.source, source)
  assert.equal(sent[0]!.event.kind, 'exit')
  await assert.rejects(k.call('process', { action: 'poll', process_id: started.process_id }, session(tempDir(t))), /no background process/)
})

test('background notifications carry no known secret (they leave through the gateway or delivery, not the runtime)', async (t) => {
  const key = 'sk-bg-0123456789abcdef0123'
  const k = await terminalKernel({ env: { AGENT_BACKGROUND_NOTIFICATIONS: 'result' }, dotenv: { BG_SERVICE_TOKEN: key } })
  t.after(() => k.close())
  const progress: string[] = []
  const s = session(tempDir(t), { progress: (text) => progress.push(text) })
  const started = await k.call('terminal', { command: `echo "token ${key} and public sk-bg-0123456789abcdef0124"`, background: true }, s)
  await k.call('process', { action: 'wait', process_id: started.process_id, timeout: 10 }, s)
  await new Promise((r) => setTimeout(r, 50))
  assert.equal(progress.length, 1, JSON.stringify(progress))
  assert.ok(!progress[0]!.includes(key), progress[0])
  assert.match(progress[0]!, /token \[REDACTED:BG_SERVICE_TOKEN\] and public sk-bg-0123456789abcdef0124/)
})
