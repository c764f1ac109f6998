// Deliveries to Discord (cron results, /background answers, webhook runs) through the delivery
// service: the home channel (and its thread), /sethome from a Discord chat, sends from a process where
// the adapter is not running (REST only), bad chat ids and refusals as one-line errors without the token.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { AgentError, DELIVERY_SERVICE, type DeliveryService } from '../../../sdk/index.ts'
import { BOT_ID, CHANNELS } from './fake-discord.ts'
import { harness, TOKEN } from './harness.ts'

test('deliveries go to the home channel, or its thread; /sethome in a Discord chat sets it', async (t) => {
  // In .env, as /sethome writes it (the process environment would win over .env).
  const h = await harness(t, { dotenv: { DISCORD_HOME_CHANNEL: CHANNELS.free } })
  await h.start()
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const receipt = await delivery.send({ kind: 'chat', platform: 'discord' }, 'cron result: all good')
  assert.equal(receipt.target.kind === 'chat' && receipt.target.chatId, CHANNELS.free)
  assert.deepEqual(h.fake.posted(CHANNELS.free), ['cron result: all good'])
  assert.deepEqual(h.fake.messages[0]!.body.allowed_mentions, { parse: [] })

  await delivery.send({ kind: 'chat', platform: 'discord', chatId: CHANNELS.general, threadId: CHANNELS.thread }, 'into the thread')
  assert.deepEqual(h.fake.posted(CHANNELS.thread), ['into the thread'])

  h.fake.message({ from: 'alice', channel: 'general', content: `<@${BOT_ID}> /sethome`, mentions: ['bot'] })
  const [confirmation] = await h.posted(CHANNELS.general)
  assert.equal(confirmation, 'This chat is now the home channel of discord.')
  assert.match(readFileSync(join(h.k.home, '.env'), 'utf8'), new RegExp(`^DISCORD_HOME_CHANNEL=${CHANNELS.general}$`, 'm'))
  await delivery.send({ kind: 'chat', platform: 'discord' }, 'to the new home')
  assert.deepEqual(h.fake.posted(CHANNELS.general), [confirmation, 'to the new home'])
})

test('a delivery without a running adapter (a CLI process) sends through the REST API with the bot token', async (t) => {
  const h = await harness(t, { env: { DISCORD_HOME_CHANNEL: CHANNELS.general } })
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  await delivery.send({ kind: 'chat', platform: 'discord' }, `${'long line of text '.repeat(150)}`)
  const posts = h.fake.requests.filter((r) => r.method === 'POST')
  assert.equal(posts.length, 2, 'split in two under 2000 characters')
  for (const post of posts) {
    assert.equal(post.headers.authorization, `Bot ${TOKEN}`)
    assert.ok(post.body.content.length <= 2000)
  }
  assert.equal(h.fake.connections(), 0, 'no gateway connection for a send')
})

test('bad chat ids and refusals are one-line delivery errors without the token', async (t) => {
  const h = await harness(t)
  await h.start()
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const failure = (to: Parameters<DeliveryService['send']>[0], text = 'x') => delivery.send(to, text).then(() => assert.fail('delivered'), (e) => e)

  const bad = await failure({ kind: 'chat', platform: 'discord', chatId: '#general' })
  assert.ok(AgentError.isInstance(bad) && bad.code === 'E_DELIVERY')
  assert.match(bad.message, /^"#general" is not a Discord channel id/)

  const none = await failure({ kind: 'chat', platform: 'discord' })
  assert.match(none.message, /set DISCORD_HOME_CHANNEL/)

  h.fake.forbidChannel(CHANNELS.free)
  const refused = await failure({ kind: 'chat', platform: 'discord', chatId: CHANNELS.free }, `${'word '.repeat(300)}\n\n${'more '.repeat(300)}`)
  assert.ok(AgentError.isInstance(refused) && refused.code === 'E_DELIVERY')
  assert.equal(refused.message, `Discord refused the message to channel ${CHANNELS.free} (part 1 of 2): HTTP 403 code 50013: Missing Permissions`)
  assert.ok(!h.log.lines.join('\n').includes(TOKEN))
})
