// The whatsapp adapter spawning the test bridge exactly as it spawns the real one: conformance; the
// reply header's cases as the child process received them in its environment (and nothing of the
// gateway's secrets), on answers in the owner's own chat only; echo suppression by header and by id;
// bot mode; allowlisting by a LID alias; a crashed bridge restarted and answering again; stop ends
// the bridge's process group; the bridge's log file; an unlinked session refused.

import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ConfigError } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel } from '../../../sdk/testing/index.ts'
import { ALICE, CORE, FAST, harness, link, MALLORY, OWN, until, type Harness, type WhatsAppAdapter } from './harness.ts'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Polls an async list until it has `count` items (bounded). */
async function eventually<T>(get: () => Promise<T[]>, count = 1, ms = 10_000): Promise<T[]> {
  const end = Date.now() + ms
  for (;;) {
    const items = await get()
    if (items.length >= count) return items
    if (Date.now() > end) throw new Error(`timed out: ${items.length} of ${count}`)
    await sleep(25)
  }
}

const answersTo = async (h: Harness, chatId: string) => (await h.sent()).sent.filter((s) => s.chatId === chatId && s.text !== undefined)

test('conformance, with no message lost across bridge crashes and gateway restarts', async (t) => {
  const env = { WHATSAPP_ALLOWED_USERS: '+15550001111', WEBHOOK_PORT: '0', API_SERVER_PORT: '0' }
  const config = (enabled: boolean) => ({ gateway: { reconnect: { initial_ms: 50, max_ms: 200 } }, platforms: { whatsapp: { enabled, extra: FAST } } })
  const kernel = (enabled: boolean) => async (_st: TestContext) => {
    const k = await createTestKernel({ builtins: CORE, config: config(enabled), env })
    link(k.home)
    return k
  }
  let current: { k: Awaited<ReturnType<typeof createTestKernel>>; home: string } | undefined
  const bridge = () => (current?.k.kernel.registries.adapters.get('whatsapp') as WhatsAppAdapter | undefined)?.bridge()
  await adapterConformance(t, {
    adapter: 'whatsapp',
    enabled: kernel(true),
    disabled: kernel(false),
    continuity: {
      async kernel({ home, extensions }) {
        link(home)
        current = { k: await createTestKernel({ home, builtins: CORE, extensions, config: config(true), env }), home }
        return current.k
      },
      // WhatsApp hands a message over once the bridge is connected: while it restarts, the user waits.
      // With the gateway down there is no bridge, and this simulated WhatsApp keeps no history.
      async say(text) {
        const end = Date.now() + 15_000
        for (;;) {
          if (!bridge()) return
          try {
            const message = { key: { remoteJid: ALICE, id: `C${Date.now()}${Math.random()}`, fromMe: false }, message: { conversation: text } }
            return void (await bridge()!.client.request('POST', '/test/inbound', { message }, 2000))
          } catch (error) {
            if (Date.now() > end) throw error
            await sleep(50)
          }
        }
      },
      said() {
        const file = join(current!.home, 'whatsapp', 'fake-sent.jsonl')
        if (!existsSync(file)) return []
        return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { chatId: string; text: string }).filter((s) => s.chatId === ALICE).map((s) => s.text)
      },
      drop() {
        const pid = bridge()?.child.pid
        if (pid) process.kill(pid, 'SIGKILL')
      },
      keepsHistory: false,
      waitMs: 15_000,
    },
  })
})

for (const [label, options, header] of [
  ['unset: the default header naming the agent', {}, '🤖 *Agent*\n'],
  ['empty string (config.yaml): no header', { extra: { reply_prefix: '' } }, ''],
  ['WHATSAPP_REPLY_PREFIX with the two characters \\n: a newline', { env: { WHATSAPP_REPLY_PREFIX: '[bot]\\n' } }, '[bot]\n'],
  ['platforms.whatsapp.extra.reply_prefix', { extra: { reply_prefix: 'Agent says:\\n' } }, 'Agent says:\n'],
  ['the environment wins over config.yaml', { env: { WHATSAPP_REPLY_PREFIX: 'env\\n' }, extra: { reply_prefix: 'config\\n' } }, 'env\n'],
] as const) {
  test(`reply_prefix ${label}`, async (t) => {
    const h = await harness(t, options)
    await h.start()
    const { env } = await h.bridge<{ env: Record<string, string> }>('/test/env')
    assert.equal(env.WHATSAPP_REPLY_PREFIX, header, 'what the child process received')
    assert.equal(env.WHATSAPP_MODE, 'self-chat')
    assert.equal(env.WHATSAPP_AUTH_DIR, join(h.k.home, 'whatsapp', 'auth'))
    assert.equal(env.WHATSAPP_MEDIA_DIR, join(h.k.home, 'cache', 'whatsapp'))
    assert.ok(env.WHATSAPP_BRIDGE_TOKEN && env.WHATSAPP_BRIDGE_TOKEN.length >= 16)
    assert.equal(env.OPENAI_API_KEY, undefined, 'the gateway\'s secrets stay out of the bridge')
    assert.equal(env.AGENT_HOME, undefined)
    // The owner asks in their own chat: the answer carries the header there.
    assert.equal((await h.inbound(OWN, 'what is on today?', { fromMe: true })).ok, true)
    assert.equal((await eventually(() => answersTo(h, OWN)))[0]!.text, `${header}Answer to: what is on today?`)
    // Another contact's answer never gets it.
    await h.inbound(ALICE, 'hello')
    assert.equal((await eventually(() => answersTo(h, ALICE)))[0]!.text, 'Answer to: hello')
  })
}

test('echo suppression in self-chat: the answer coming back (same id) and a headed message are not input; the owner is', async (t) => {
  const h = await harness(t)
  await h.start()
  await h.inbound(OWN, 'first question', { fromMe: true })
  await eventually(() => answersTo(h, OWN))
  // The test bridge echoes every send to the owner's chat with its id, as WhatsApp does.
  const ignored = await eventually(async () => (await h.sent()).ignored.filter((i) => i.reason === 'the echo of a message we sent (id)'))
  assert.equal(ignored.length, 1)
  // A headed message with an id we never sent (our answer seen from another device): by the header.
  assert.deepEqual(await h.inbound(OWN, '🤖 *Agent*\nold answer', { fromMe: true }), { ok: false, reason: 'the echo of a message we sent (prefix)' })
  await h.inbound(OWN, 'second question', { fromMe: true })
  await eventually(() => answersTo(h, OWN), 2)
  await sleep(300)
  assert.deepEqual(h.inputs(), ['first question', 'second question'])
  assert.equal((await answersTo(h, OWN)).length, 2, 'no loop')
})

test('echo suppression with an empty header: by id alone, no loop', async (t) => {
  const h = await harness(t, { extra: { reply_prefix: '' } })
  await h.start()
  await h.inbound(OWN, 'ping', { fromMe: true })
  await eventually(async () => (await h.sent()).ignored.filter((i) => i.reason === 'the echo of a message we sent (id)'))
  await sleep(300)
  assert.deepEqual(h.inputs(), ['ping'])
  assert.deepEqual((await answersTo(h, OWN)).map((s) => s.text), ['Answer to: ping'])
})

test('bot mode: the account\'s own messages are dropped; others are answered without a header', async (t) => {
  const h = await harness(t, { extra: { mode: 'bot' } })
  await h.start()
  assert.deepEqual(await h.inbound(OWN, 'from the account', { fromMe: true }), { ok: false, reason: 'from the account itself (bot mode)' })
  await h.inbound(ALICE, 'hi bot')
  assert.equal((await eventually(() => answersTo(h, ALICE)))[0]!.text, 'Answer to: hi bot')
  assert.deepEqual(h.inputs(), ['hi bot'])
})

test('allowlists on stable ids: a sender listed by its LID alias is answered; a stranger is not', async (t) => {
  const h = await harness(t, { env: { WHATSAPP_ALLOWED_USERS: '88880004444@lid' } })
  await h.start()
  await h.inbound(MALLORY, 'let me in')
  await h.inbound('15550004444@s.whatsapp.net', 'via my lid', { senderLid: '88880004444@lid' })
  await eventually(() => answersTo(h, '15550004444@s.whatsapp.net'))
  await sleep(200)
  assert.deepEqual(h.inputs(), ['via my lid'])
  assert.equal((await answersTo(h, MALLORY)).length, 0)
  assert.equal(h.runs[0]!.source?.userId, '88880004444@lid')
})

test('a crashed bridge is restarted with backoff and answers again; stop ends its process group', async (t) => {
  const h = await harness(t)
  await h.start()
  const first = (await h.bridge<{ pid: number }>('/test/env')).pid
  process.kill(first, 'SIGKILL')
  await until(() => h.adapter.bridge()?.child.pid !== first, 10_000, () => h.lines.join('\n'))
  await until(() => h.lines.some((l) => l.includes('the WhatsApp bridge is running again')), 10_000, () => h.lines.join('\n'))
  assert.ok(h.lines.some((l) => /warn: the WhatsApp bridge exited \(SIGKILL\); restarting it in \d/.test(l)), h.lines.join('\n'))
  await h.inbound(ALICE, 'after the crash')
  assert.equal((await eventually(() => answersTo(h, ALICE)))[0]!.text, 'Answer to: after the crash')
  const second = (await h.bridge<{ pid: number }>('/test/env')).pid
  assert.notEqual(second, first)
  const log = readFileSync(join(h.k.home, 'logs', 'whatsapp-bridge.log'), 'utf8')
  assert.equal(log.match(/fake-bridge listening \(self-chat mode\)/g)?.length, 2, log)
  await h.adapter.stop()
  assert.equal(alive(second), false)
})

test('a bridge that stops answering its health check is restarted', async (t) => {
  const h = await harness(t)
  await h.start()
  const pid = (await h.bridge<{ pid: number }>('/test/env')).pid
  process.kill(pid, 'SIGSTOP')
  t.after(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL')
  })
  await until(() => h.lines.some((l) => l.includes('fails its health check')), 15_000, () => h.lines.join('\n'))
  await until(() => h.adapter.bridge()?.child.pid !== pid, 15_000, () => h.lines.join('\n'))
  await h.inbound(ALICE, 'still there?')
  await eventually(() => answersTo(h, ALICE))
})

test('an unlinked session: start refuses with a ConfigError naming the setup command; send needs the gateway', async (t) => {
  const k = await createTestKernel({ builtins: CORE, config: { platforms: { whatsapp: { enabled: true, extra: FAST } } }, env: { WEBHOOK_PORT: '0', API_SERVER_PORT: '0' } })
  t.after(() => k.close())
  const adapter = k.kernel.registries.adapters.get('whatsapp') as unknown as Harness['adapter']
  const { adapterContext } = await import('../../../sdk/testing/index.ts')
  await assert.rejects(adapter.start(adapterContext(k)), (error: unknown) => ConfigError.isInstance(error) && /agent gateway whatsapp setup/.test((error as Error).message))
  await assert.rejects(adapter.send(ALICE, 'x'), /sent by the running gateway/)
  await assert.rejects(adapter.send('alice', 'x'), /not a WhatsApp chat id/)
})

test('an incoming photo is saved under <agent_home>/cache/whatsapp and the agent reads where', async (t) => {
  const h = await harness(t)
  await h.start()
  await h.bridge('/test/inbound', { message: { key: { remoteJid: ALICE, id: 'PHOTO1', fromMe: false }, message: { imageMessage: { mimetype: 'image/jpeg', caption: 'what is this?' } } } })
  await until(() => h.runs.length === 1, 10_000)
  const path = join(h.k.home, 'cache', 'whatsapp', 'PHOTO1.jpeg')
  assert.equal(h.inputs()[0], `what is this?\n[image: image/jpeg, saved at ${path}]`)
  assert.equal(readFileSync(path, 'utf8'), 'media of PHOTO1')
})
