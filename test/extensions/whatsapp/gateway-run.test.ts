// Against a running `agent gateway run` (real runtime, scripted model): the gateway starts the test
// bridge as it starts the real one; the owner's question in their own chat is answered there with
// the header, its echo is not a new prompt; another contact is answered without the header; SIGINT
// exits 0 and ends the bridge. Without a linked session, `gateway run` exits 2 naming the setup command.

import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { lastUser, modelPrompts, startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { ALICE, FAST, link, OWN, OWNER, until } from './harness.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

function home(t: TestContext, linked = true): string {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'config.yaml'), YAML.stringify({ _config_version: 10, platforms: { whatsapp: { extra: FAST } }, gateway: { human_delay: { min_ms: 10, max_ms: 30 } } }))
  if (linked) link(dir)
  return dir
}

const env = (model: ScriptedModelServer) => ({
  WHATSAPP_ALLOWED_USERS: `${OWNER},+15550001111`,
  ...scriptedModelEnv(model),
})

function sentIn(dir: string, chatId: string): string[] {
  const file = join(dir, 'whatsapp', 'fake-sent.jsonl')
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { chatId: string; text: string }).filter((s) => s.chatId === chatId).map((s) => s.text)
}

test('WhatsApp end to end through `agent gateway run` with the test bridge', async (t) => {
  const model = await startScriptedModel({ respond: (body) => ({ text: `Answer to: ${lastUser(body)}` }) })
  t.after(() => model.close())
  const dir = home(t)
  const agent = startAgent(['gateway', 'run'], { home: dir, logLevel: 'debug', env: env(model) })
  t.after(() => agent.stop('SIGKILL'))
  await agent.waitFor(/gateway running \(adapters: [^)]*whatsapp/, 30_000)
  const bridge = JSON.parse(readFileSync(join(dir, 'whatsapp', 'fake-bridge.json'), 'utf8')) as { port: number; token: string; pid: number }
  const inbound = (remoteJid: string, text: string, fromMe = false) =>
    fetch(`http://127.0.0.1:${bridge.port}/test/inbound`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bridge.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: { key: { remoteJid, id: `E2E${Math.random()}`, fromMe }, message: { conversation: text }, messageTimestamp: Math.floor(Date.now() / 1000) } }),
    }).then((r) => r.json())

  await inbound(OWN, 'plan my day', true)
  await until(() => sentIn(dir, OWN).length === 1, 20_000, () => agent.stderr().slice(-3000))
  assert.equal(sentIn(dir, OWN)[0], '🤖 *Agent*\nAnswer to: plan my day')
  await inbound(ALICE, 'hello')
  await until(() => sentIn(dir, ALICE).length === 1, 20_000, () => agent.stderr().slice(-3000))
  assert.equal(sentIn(dir, ALICE)[0], 'Answer to: hello')
  await sleep(300)
  const prompts = modelPrompts(model)
  assert.deepEqual(prompts, ['plan my day', 'hello'], 'the echo of the answer was not a prompt')
  assert.match(readFileSync(join(dir, 'logs', 'whatsapp-bridge.log'), 'utf8'), /fake-bridge listening \(self-chat mode\)/)

  assert.equal(await agent.stop('SIGINT'), 0)
  await until(() => {
    try {
      process.kill(bridge.pid, 0)
      return false
    } catch {
      return true
    }
  }, 10_000, 'the bridge to end with the gateway')
  const output = agent.stderr() + agent.stdout()
  assert.ok(!output.includes(bridge.token), 'the bridge token never reaches the output')
  assert.ok(!output.includes('15550000001'), 'phone numbers are redacted')
})

test('no linked session: `agent gateway run` exits 2 naming the setup command', async (t) => {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const dir = home(t, false)
  writeFileSync(join(dir, 'config.yaml'), YAML.stringify({ _config_version: 10, platforms: { whatsapp: { enabled: true, extra: FAST } } }))
  const run = await runAgent(['gateway', 'run'], { home: dir, timeoutMs: 30_000, env: env(model) })
  assert.equal(run.code, 2, run.stderr)
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('agent:'))
  assert.deepEqual(lines, ['agent: adapter "whatsapp" cannot start: WhatsApp is not linked: run `agent gateway whatsapp setup` and scan the QR code with your phone'])
})

test('`agent gateway whatsapp setup` with a linked session says so and changes nothing', async (t) => {
  const dir = home(t)
  const before = readFileSync(join(dir, 'whatsapp', 'auth', 'creds.json'), 'utf8')
  const run = await runAgent(['gateway', 'whatsapp', 'setup'], { home: dir, timeoutMs: 30_000 })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stdout, /WhatsApp is already linked\. `agent gateway run` starts it; `agent gateway whatsapp setup --force` links again\./)
  assert.equal(readFileSync(join(dir, 'whatsapp', 'auth', 'creds.json'), 'utf8'), before)
})
