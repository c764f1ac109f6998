// The signal adapter in a real kernel against the loopback fake daemon: conformance; a DM answered
// with typing shown first; groups per SIGNAL_GROUP_ALLOWED_USERS; Note to Self answered once (its
// echo dropped); attachments fetched with getAttachment; the stream resumed after a drop; a silent
// stream with a failing check reconnects, a silent one with a passing check does not; the
// wrong-wrapper 404; phone numbers never in the log lines.

import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ConfigError, type GatewayAdapter } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel } from '../../../sdk/testing/index.ts'
import { ACCOUNT, ALICE, BOB, dm, inGroup, MALLORY, OTHER_GROUP, ownSent, startFakeDaemon, TEAM } from './fake-daemon.ts'
import { CORE, FAST, harness, until } from './harness.ts'

const answers = (h: Awaited<ReturnType<typeof harness>>, to: Record<string, unknown>) => h.daemon.sends().filter((c) => Object.entries(to).every(([k, v]) => JSON.stringify(c.params[k]) === JSON.stringify(v)))

test('conformance, with no message lost across reconnects and restarts', async (t) => {
  const daemon = await startFakeDaemon()
  t.after(() => daemon.close())
  const env = { SIGNAL_HTTP_URL: daemon.url, SIGNAL_ACCOUNT: ACCOUNT, SIGNAL_ALLOWED_USERS: ALICE, WEBHOOK_PORT: '0', API_SERVER_PORT: '0' }
  const config = (enabled: boolean) => ({ gateway: { reconnect: { initial_ms: 50, max_ms: 200 } }, platforms: { signal: { enabled, extra: FAST } } })
  await adapterConformance(t, {
    adapter: 'signal',
    enabled: () => createTestKernel({ builtins: CORE, config: config(true), env }),
    disabled: () => createTestKernel({ builtins: CORE, config: config(false), env }),
    continuity: {
      kernel: ({ home, extensions }) => createTestKernel({ home, builtins: CORE, extensions, config: config(true), env }),
      say: (text) => void daemon.push(dm(ALICE, text)),
      said: () => daemon.sends().filter((c) => c.params.recipient?.[0] === ALICE).map((c) => String(c.params.message)),
      drop: () => daemon.dropStreams(),
      keepsHistory: true,
      waitMs: 10_000,
    },
  })
})

test('a DM from an allowed user: typing, then the answer to their number; a stranger gets no run', async (t) => {
  const h = await harness(t)
  await h.start()
  assert.deepEqual(h.daemon.connections.at(-1), { account: ACCOUNT })
  h.daemon.push(dm(MALLORY, 'let me in'))
  h.daemon.push(dm(ALICE, 'What is 2+2?'))
  await until(() => answers(h, { recipient: [ALICE] }).length === 1, 10_000, () => h.lines.join('\n'))
  assert.deepEqual(answers(h, { recipient: [ALICE] })[0]!.params, { account: ACCOUNT, recipient: [ALICE], message: 'Answer to: What is 2+2?', textStyle: ['0:6:BOLD'] })
  assert.ok(h.daemon.calls.some((c) => c.method === 'sendTyping' && c.params.recipient?.[0] === ALICE))
  assert.deepEqual(h.inputs(), ['What is 2+2?'])
  assert.equal(answers(h, { recipient: [MALLORY] }).length, 0)
  for (const line of h.lines) assert.ok(!line.includes(ALICE) && !line.includes(MALLORY) && !line.includes(ACCOUNT), `a phone number in: ${line}`)
  assert.ok(h.lines.some((l) => l.includes('+155****1111')))
})

async function groupCase(t: TestContext, list: string | undefined) {
  const h = await harness(t, { env: { SIGNAL_GROUP_ALLOWED_USERS: list } })
  await h.start()
  h.daemon.push(inGroup(BOB, TEAM, 'in the team'))
  h.daemon.push(inGroup(BOB, OTHER_GROUP, 'in the other group'))
  h.daemon.push(dm(ALICE, 'sentinel'))
  await until(() => h.inputs().includes('sentinel'), 10_000)
  await sleep(100)
  return h.inputs().filter((i) => i !== 'sentinel').sort()
}

test('groups: unset disables them', async (t) => assert.deepEqual(await groupCase(t, undefined), []))
test('groups: `*` opens every group', async (t) => assert.deepEqual(await groupCase(t, '*'), ['in the other group', 'in the team']))
test('groups: a listed group id (raw) is open, another is not', async (t) => assert.deepEqual(await groupCase(t, TEAM), ['in the team']))
test('groups: a listed group id (group.<id>) is open, another is not', async (t) => assert.deepEqual(await groupCase(t, `group.${TEAM}`), ['in the team']))

test('a group answer goes to the group id', async (t) => {
  const h = await harness(t, { env: { SIGNAL_GROUP_ALLOWED_USERS: TEAM } })
  await h.start()
  h.daemon.push(inGroup(BOB, TEAM, 'hello team'))
  await until(() => answers(h, { groupId: TEAM }).length === 1, 10_000)
  assert.equal(answers(h, { groupId: TEAM })[0]!.params.message, 'Answer to: hello team')
})

test('Note to Self: answered once; the answer\'s own echo is not read as a new message', async (t) => {
  const h = await harness(t, { env: { SIGNAL_ALLOWED_USERS: `${ALICE},${ACCOUNT}` } })
  await h.start()
  h.daemon.push(ownSent('note: buy milk'))
  await until(() => answers(h, { recipient: [ACCOUNT] }).length === 1, 10_000)
  // The fake daemon syncs the answer back as Note to Self, as signal-cli does.
  await until(() => h.lines.some((l) => l.includes('the echo of a message we sent')), 5000, () => h.lines.join('\n'))
  await sleep(200)
  assert.deepEqual(h.inputs(), ['note: buy milk'])
  assert.equal(answers(h, { recipient: [ACCOUNT] }).length, 1)
})

test('a group message the owner sent from a linked device reaches the agent', async (t) => {
  const h = await harness(t, { env: { SIGNAL_GROUP_ALLOWED_USERS: TEAM } })
  await h.start()
  h.daemon.push(ownSent('agent, summarise this thread', { groupId: TEAM }))
  await until(() => answers(h, { groupId: TEAM }).length === 1, 10_000)
  assert.deepEqual(h.inputs(), ['agent, summarise this thread'])
})

test('an attachment is fetched with getAttachment and described to the agent', async (t) => {
  const h = await harness(t)
  await h.start()
  h.daemon.attachments.set('att1.png', Buffer.from('PNGDATA'))
  h.daemon.push(dm(ALICE, 'see this', { attachments: [{ id: 'att1.png', contentType: 'image/png', filename: 'photo.png', size: 7 }, { id: 'big.bin', contentType: 'application/octet-stream', size: 10 ** 9 }] }))
  await until(() => h.runs.length === 1, 10_000)
  const input = h.inputs()[0]!
  const saved = input.match(/\[attachment: photo\.png \(image\/png, 7 B\) saved at (.+)\]/)
  assert.ok(saved, input)
  assert.equal(readFileSync(saved[1]!, 'utf8'), 'PNGDATA')
  assert.match(input, /\[attachment: big\.bin \(application\/octet-stream, 953\.7 MB\) not downloaded: larger than 25\.0 MB\]/)
  assert.ok(!existsSync(saved[1]!.replace('att1.png', 'big.bin')))
})

test('the stream drops: reconnected with the last event id, and the next message is answered', async (t) => {
  const h = await harness(t)
  await h.start()
  const id = h.daemon.push(dm(ALICE, 'before the drop'))
  await until(() => h.runs.length === 1, 10_000)
  h.daemon.dropStreams()
  await until(() => h.daemon.connections.length === 2 && h.daemon.openStreams() === 1, 10_000, () => h.lines.join('\n'))
  assert.equal(h.daemon.connections[1]!.lastEventId, String(id))
  h.daemon.push(dm(ALICE, 'after the drop'))
  await until(() => h.runs.length === 2, 10_000)
  assert.deepEqual(h.inputs(), ['before the drop', 'after the drop'])
  assert.ok(h.lines.some((l) => /warn: the Signal event stream dropped/.test(l)), h.lines.join('\n'))
})

test('silence past the limit: a failing check forces a reconnect; a passing one does not', async (t) => {
  const h = await harness(t, { extra: { stale_after_seconds: 0.2 } })
  await h.start()
  await until(() => h.daemon.checks >= 3, 10_000)
  assert.equal(h.daemon.connections.length, 1, 'the daemon answers its check: the quiet stream is kept')
  h.daemon.checkStatus = 503
  await until(() => h.daemon.connections.length >= 2, 10_000, () => h.lines.join('\n'))
  assert.ok(h.lines.some((l) => /the Signal event stream is silent and the daemon fails its check \(.*HTTP 503\)\); reconnecting/.test(l)), h.lines.join('\n'))
})

test('a 404 on the first check: a ConfigError naming the wrong wrapper; an unreachable daemon is retryable', async (t) => {
  const h = await harness(t)
  h.daemon.checkStatus = 404
  await assert.rejects(h.adapter.start(h.context()), (error: unknown) => ConfigError.isInstance(error) && /another Signal REST wrapper .*signal-cli daemon --http|daemon --http 127\.0\.0\.1:8080/.test((error as Error).message))
  await h.daemon.close()
  await assert.rejects(h.adapter.start(h.context()), (error: unknown) => !ConfigError.isInstance(error) && /unreachable/.test((error as Error).message))
})

test('send outside a running adapter (delivery from another process) and bad chat ids', async (t) => {
  const h = await harness(t)
  const adapter = h.adapter as GatewayAdapter & { send: NonNullable<GatewayAdapter['send']> }
  await adapter.send(`group.${TEAM}`, 'to the team')
  assert.deepEqual(h.daemon.sends()[0]!.params, { account: ACCOUNT, groupId: TEAM, message: 'to the team' })
  await assert.rejects(adapter.send('not-a-chat', 'x'), /not a Signal chat id/)
})

test('restart: resumes after the last event handled; what came meanwhile is caught up once, old messages are not answered again', async (t) => {
  const h = await harness(t)
  await h.start()
  const first = h.daemon.push(dm(ALICE, 'before the restart'))
  await until(() => answers(h, { recipient: [ALICE] }).length === 1, 10_000)
  await h.adapter.stop()
  h.daemon.push(dm(ALICE, 'while away 1'))
  h.daemon.push(dm(ALICE, 'while away 2'))
  await h.adapter.start(h.context())
  assert.equal(h.daemon.connections.at(-1)!.lastEventId, String(first))
  await until(() => answers(h, { recipient: [ALICE] }).length === 3, 10_000, () => h.lines.join('\n'))
  assert.ok(h.lines.some((l) => /info: caught up with 2 Signal message\(s\) from while the gateway was away: 2 answered, 0 summarised, 0 already seen/.test(l)), h.lines.join('\n'))
  // The daemon restarted and no longer knows the id: it replays everything it kept; nothing is answered twice.
  await h.adapter.stop()
  const { GATEWAY_SERVICE } = await import('../../../sdk/index.ts')
  await h.k.kernel.services.require<import('../../../sdk/index.ts').GatewayService>(GATEWAY_SERVICE).resumePoint('signal').set(JSON.stringify({ event: '424242', ts: 1 }))
  await h.adapter.start(h.context())
  await until(() => h.lines.some((l) => /caught up with 3 Signal message\(s\).*3 already seen/.test(l)), 10_000, () => h.lines.join('\n'))
  assert.deepEqual(h.inputs(), ['before the restart', 'while away 1', 'while away 2'])
  assert.equal(answers(h, { recipient: [ALICE] }).length, 3)
})

test('typing is renewed while a turn runs and stops with the answer', async (t) => {
  const h = await harness(t, { extra: { typing_renew_ms: 50 } })
  await h.start()
  const typings = () => h.daemon.calls.filter((c) => c.method === 'sendTyping' && c.params.recipient?.[0] === ALICE).length
  await h.adapter.typing!(ALICE)
  await until(() => typings() >= 3, 10_000, () => `renewals: ${typings()}`)
  await (h.adapter as GatewayAdapter & { send: NonNullable<GatewayAdapter['send']> }).send(ALICE, 'done')
  const after = typings()
  await sleep(300)
  // At most one renewal that was already on its way.
  assert.ok(typings() <= after + 1, `typing went on after the answer: ${after} → ${typings()}`)
})

test('SIGNAL_HOME_CHANNEL: a delivery naming no chat goes there; a raw group id works', async (t) => {
  const h = await harness(t, { env: { SIGNAL_HOME_CHANNEL: TEAM } })
  await h.start()
  const { DELIVERY_SERVICE } = await import('../../../sdk/index.ts')
  const delivery = h.k.kernel.services.require<import('../../../sdk/index.ts').DeliveryService>(DELIVERY_SERVICE)
  const receipt = await delivery.send({ kind: 'chat', platform: 'signal' }, 'the nightly report')
  assert.equal(receipt.parts, 1)
  await until(() => answers(h, { groupId: TEAM }).length === 1, 10_000)
  assert.equal(answers(h, { groupId: TEAM })[0]!.params.message, 'the nightly report')
})
