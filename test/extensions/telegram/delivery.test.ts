// Deliveries to Telegram (cron results, /background answers, webhook runs) through the delivery
// service: the home channel (and its topic), /sethome from a Telegram chat, sends from a process where
// the adapter is not running; refused markup resent as plain text; an upgraded group followed; bad chat ids and refusals as
// one-line errors without the token; a stranger refused, then paired and answered.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { AgentError, DELIVERY_SERVICE, GATEWAY_AUTH_SERVICE, type DeliveryService, type GatewayAuthService } from '../../../sdk/index.ts'
import { GROUPS, TOKEN, USERS } from './fake-telegram.ts'
import { harness } from './harness.ts'

test('deliveries go to the home channel, or its topic; /sethome in a Telegram chat sets it', async (t) => {
  const h = await harness(t, { dotenv: { TELEGRAM_HOME_CHANNEL: String(GROUPS.free.id) } })
  await h.start()
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const receipt = await delivery.send({ kind: 'chat', platform: 'telegram' }, 'cron result: **all good**.')
  assert.equal(receipt.target.kind === 'chat' && receipt.target.chatId, String(GROUPS.free.id))
  assert.deepEqual(h.fake.posted(GROUPS.free.id), ['cron result: all good.'])
  assert.equal(h.fake.sent[0]!.text, 'cron result: *all good*\\.')

  await delivery.send({ kind: 'chat', platform: 'telegram', chatId: String(GROUPS.forum.id), threadId: '7' }, 'into the topic')
  assert.equal(h.fake.sent.at(-1)!.threadId, 7)

  h.fake.message({ from: 'alice', group: 'general', text: '/sethome', mention: true })
  const [confirmation] = await h.posted(GROUPS.general.id)
  assert.equal(confirmation, 'This chat is now the home channel of telegram.')
  assert.match(readFileSync(join(h.k.home, '.env'), 'utf8'), new RegExp(`^TELEGRAM_HOME_CHANNEL=${GROUPS.general.id}$`, 'm'))
  await delivery.send({ kind: 'chat', platform: 'telegram' }, 'to the new home')
  assert.deepEqual(h.fake.posted(GROUPS.general.id), [confirmation, 'to the new home'])
})

test('a delivery without a running adapter (a CLI process) uses the Bot API with the token, in parts', async (t) => {
  const h = await harness(t, { env: { TELEGRAM_HOME_CHANNEL: String(USERS.alice.id) } })
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  await delivery.send({ kind: 'chat', platform: 'telegram' }, `${'long line of text. '.repeat(300)}`)
  const sends = h.fake.requests.filter((r) => r.method === 'sendMessage')
  assert.equal(sends.length, 2, 'split in two under 4096 characters')
  for (const send of sends) assert.ok(send.body.text.length <= 4096)
  assert.equal(h.fake.requests.filter((r) => r.method === 'getUpdates').length, 0, 'no polling for a send')
})

test('markup Telegram refuses is resent as plain text', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.fail('sendMessage', 1, { code: 400, description: "Bad Request: can't parse entities: Can't find end of Bold entity at byte offset 3" })
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  await delivery.send({ kind: 'chat', platform: 'telegram', chatId: String(USERS.alice.id) }, 'a **bold** claim (really).')
  const sends = h.fake.requests.filter((r) => r.method === 'sendMessage')
  assert.deepEqual(sends.map((r) => [r.status, r.body.parse_mode]), [[400, 'MarkdownV2'], [200, undefined]])
  assert.equal(sends[1]!.body.text, 'a **bold** claim (really).')
  assert.ok(h.log.lines.some((l) => l.includes("Telegram refused the MarkdownV2 of a part (Bad Request: can't parse entities")))
})

test('a group upgraded to a supergroup: the answer goes to the new chat, with a warning', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.fail('sendMessage', 1, { code: 400, description: 'Bad Request: group chat was upgraded to a supergroup chat', migrateTo: GROUPS.general.id })
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  await delivery.send({ kind: 'chat', platform: 'telegram', chatId: '-4000000001' }, 'to the old group')
  assert.deepEqual(h.fake.posted(GROUPS.general.id), ['to the old group'])
  assert.ok(h.log.lines.some((l) => l.startsWith(`warn: Telegram chat -4000000001 became the supergroup ${GROUPS.general.id}`)))
})

test('bad chat ids and refusals are one-line delivery errors without the token', async (t) => {
  const h = await harness(t)
  await h.start()
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const failure = (to: Parameters<DeliveryService['send']>[0], text = 'x') => delivery.send(to, text).then(() => assert.fail('delivered'), (e) => e)

  const bad = await failure({ kind: 'chat', platform: 'telegram', chatId: 'general' })
  assert.ok(AgentError.isInstance(bad) && bad.code === 'E_DELIVERY')
  assert.match(bad.message, /^"general" is not a Telegram chat id/)
  const none = await failure({ kind: 'chat', platform: 'telegram' })
  assert.match(none.message, /set TELEGRAM_HOME_CHANNEL/)

  h.fake.fail('sendMessage', 1, { code: 403, description: 'Forbidden: bot was blocked by the user' })
  const refused = await failure({ kind: 'chat', platform: 'telegram', chatId: String(USERS.bob.id) }, `${'word '.repeat(700)}\n\n${'more '.repeat(700)}`)
  assert.ok(AgentError.isInstance(refused) && refused.code === 'E_DELIVERY')
  assert.equal(refused.message, `Telegram refused the message to chat ${USERS.bob.id} (part 1 of 2): 403: Forbidden: bot was blocked by the user`)
  assert.ok(!h.log.lines.join('\n').includes(TOKEN))
})

test('a stranger gets a pairing code, is approved, then answered', async (t) => {
  const h = await harness(t, { env: { TELEGRAM_ALLOWED_USERS: undefined } })
  await h.start()
  h.fake.message({ from: 'mallory', text: 'hello?' })
  const [pairing] = await h.posted(USERS.mallory.id)
  const code = /\b([A-Z0-9]{6,10})\b/.exec(pairing!)?.[1]
  assert.ok(code, pairing)
  assert.deepEqual(h.prompts(), [])
  await h.k.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE).approve(code!)
  h.fake.message({ from: 'mallory', text: 'now?' })
  assert.deepEqual(await h.posted(USERS.mallory.id, 2), [pairing, 'answer to: now?'])
  await sleep(100)
  assert.deepEqual(h.prompts(), ['now?'])
})
