// Deliveries to Slack (cron results, /background answers, webhook runs) through the delivery
// service: the home channel (and its thread), `/agent sethome` from a Slack chat, sends from a
// process where the adapter is not running (Web API only), a 429 waited out, bad ids and refusals as
// one-line errors without a token, retryable failures left to the gateway's outbox.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { AgentError, DELIVERY_SERVICE, GATEWAY_SERVICE, isRetryableDelivery, type DeliveryService, type GatewayService } from '../../../sdk/index.ts'
import { CHANNELS, startFakeSlack, USERS } from './fake-slack.ts'
import { BOT_TOKEN, harness } from './harness.ts'

test('deliveries go to the home channel, or a thread; `/agent sethome` in a Slack chat sets it', async (t) => {
  // In .env, as /sethome writes it (the process environment would win over .env).
  const h = await harness(t, { dotenv: { SLACK_HOME_CHANNEL: CHANNELS.free } })
  await h.start()
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const receipt = await delivery.send({ kind: 'chat', platform: 'slack' }, 'cron result: **all good**')
  assert.equal(receipt.target.kind === 'chat' && receipt.target.chatId, CHANNELS.free)
  assert.deepEqual(h.fake.texts(CHANNELS.free), ['cron result: *all good*'])

  await delivery.send({ kind: 'chat', platform: 'slack', chatId: CHANNELS.general, threadId: '1700000000.000100' }, 'into the thread')
  assert.deepEqual(h.fake.texts(CHANNELS.general, '1700000000.000100'), ['into the thread'])

  h.fake.slash({ from: 'alice', channel: 'general', text: 'sethome' })
  const [, confirmation] = await h.posted(CHANNELS.general, 2)
  assert.equal(confirmation, 'This chat is now the home channel of slack.')
  assert.match(readFileSync(join(h.k.home, '.env'), 'utf8'), new RegExp(`^SLACK_HOME_CHANNEL=${CHANNELS.general}$`, 'm'))
  await delivery.send({ kind: 'chat', platform: 'slack' }, 'to the new home')
  assert.equal(h.fake.texts(CHANNELS.general).at(-1), 'to the new home')
})

test('a background-process notice goes to the conversation it belongs to, thread included', async (t) => {
  const h = await harness(t)
  await h.start()
  const gateway = h.k.kernel.services.require<GatewayService>(GATEWAY_SERVICE)
  const source = { platform: 'slack', userId: USERS.bob, chatId: CHANNELS.general, chatType: 'group' as const, threadId: '1700000000.000200' }
  assert.equal(await gateway.notifyBackground(source, { kind: 'exit', processId: 'proc_1', exitCode: 0, text: 'build finished: `ok`' }), true)
  assert.deepEqual(await h.posted(CHANNELS.general, 1, '1700000000.000200'), ['build finished: `ok`'])
})

test('a delivery without a running adapter (a CLI process) uses the Web API with the bot token, in parts', async (t) => {
  const h = await harness(t, { env: { SLACK_HOME_CHANNEL: CHANNELS.general } })
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const receipt = await delivery.send({ kind: 'chat', platform: 'slack' }, `${'long line of text '.repeat(300)}`)
  assert.equal(receipt.parts, 1, 'one text handed over; the adapter splits it')
  const posts = h.fake.requests.filter((r) => r.method === 'chat.postMessage')
  assert.equal(posts.length, 2, 'split in two under 4000 characters')
  for (const post of posts) {
    assert.equal(post.headers.authorization, `Bearer ${BOT_TOKEN}`)
    assert.ok(post.body.text.length <= 4000)
  }
  assert.equal(h.fake.connections(), 0, 'no Socket Mode connection for a send')
})

test('a 429 on chat.postMessage is waited out (Retry-After) and the message sent once', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.rateLimit(1)
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const started = Date.now()
  await delivery.send({ kind: 'chat', platform: 'slack', chatId: CHANNELS.general }, 'after the limit')
  assert.ok(Date.now() - started >= 900, 'waited about the second Slack asked for')
  assert.deepEqual(h.fake.requests.filter((r) => r.method === 'chat.postMessage').map((r) => r.outcome), ['HTTP 429', 'ok'])
  assert.deepEqual(h.fake.texts(CHANNELS.general), ['after the limit'])
  assert.ok(h.log.lines.includes('info: Slack rate limit: retrying in 1 s'), h.log.lines.join('\n'))
})

test('bad ids and refusals are one-line delivery errors without a token; an unreachable Slack is left to the outbox', async (t) => {
  const h = await harness(t)
  await h.start()
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const failure = (to: Parameters<DeliveryService['send']>[0], text = 'x') => delivery.send(to, text).then(() => assert.fail('delivered'), (e) => e)

  const bad = await failure({ kind: 'chat', platform: 'slack', chatId: '#general' })
  assert.ok(AgentError.isInstance(bad) && bad.code === 'E_DELIVERY')
  assert.match(bad.message, /^"#general" is not a Slack channel id/)
  const badThread = await failure({ kind: 'chat', platform: 'slack', chatId: CHANNELS.general, threadId: 'yesterday' })
  assert.match(badThread.message, /^"yesterday" is not a Slack thread timestamp/)
  const none = await failure({ kind: 'chat', platform: 'slack' })
  assert.match(none.message, /SLACK_HOME_CHANNEL/)

  h.fake.forbidChannel(CHANNELS.free)
  const refused = await failure({ kind: 'chat', platform: 'slack', chatId: CHANNELS.free }, `${'word '.repeat(700)}\n\n${'more '.repeat(700)}`)
  assert.ok(AgentError.isInstance(refused) && refused.code === 'E_DELIVERY')
  assert.equal(refused.message, `Slack refused the message to ${CHANNELS.free} (part 1 of 2): not_in_channel: invite the app to the channel first (/invite @app)`)
  assert.equal(isRetryableDelivery(refused), false)
  assert.ok(!h.log.lines.join('\n').includes(BOT_TOKEN))

  const gone = await startFakeSlack({ botToken: BOT_TOKEN, appToken: 'xapp-unused' })
  await gone.close()
  const unreachable = await harness(t, { env: { SLACK_API_BASE_URL: gone.apiBase } })
  const error = await unreachable.adapter.send!(CHANNELS.general, 'hello').then(() => undefined, (e) => e)
  assert.ok(isRetryableDelivery(error), `not retryable: ${error}`)
  assert.match(error.message, /^Slack did not take the message to C0GENERAL1: .*ECONNREFUSED/)
})

test('a retried reply (same idempotency key) skips the parts Slack already took', async (t) => {
  const h = await harness(t)
  await h.start()
  const text = `${'first part words '.repeat(200)}\n\n${'second part words '.repeat(200)}`
  // Part 1 goes through; part 2 fails with a 5xx, also on the client's own retries.
  h.fake.failPostsAfter(1, 4)
  const error = await h.adapter.send!(CHANNELS.free, text, { idempotencyKey: 'row1.0' }).then(() => undefined, (e) => e)
  assert.ok(isRetryableDelivery(error), `not retryable: ${error}`)
  assert.match(error.message, /^Slack did not take the message to C0FREECHAN \(part 2 of 2\): HTTP 500/)
  assert.equal(h.fake.texts(CHANNELS.free).length, 1)
  // The outbox retries it: only part 2 is sent.
  await h.adapter.send!(CHANNELS.free, text, { idempotencyKey: 'row1.0' })
  const texts = h.fake.texts(CHANNELS.free)
  assert.equal(texts.length, 2)
  assert.match(texts[0]!, /^first part/)
  assert.match(texts[1]!, /^second part/)
  // Done, the key is forgotten: the same key again is a new reply.
  await h.adapter.send!(CHANNELS.free, 'short', { idempotencyKey: 'row1.0' })
  assert.equal(h.fake.texts(CHANNELS.free).at(-1), 'short')
})

test('stop() lets a send under way finish, so the outbox records what Slack took', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.delayPosts(400)
  let done = false
  const sending = h.adapter.send!(CHANNELS.general, 'last words').then(() => (done = true))
  await new Promise((resolve) => setTimeout(resolve, 50))
  await h.adapter.stop()
  assert.equal(done, true, 'stop() returned before the send did')
  await sending
  assert.deepEqual(h.fake.texts(CHANNELS.general), ['last words'])
})
