// Messages from Telegram through the real gateway: a private chat answered (MarkdownV2, after typing),
// group messages answered only when they mention the bot, reply to it, name it in a command or sit in
// a free-response chat; other bots, strangers and commands for other bots run nothing; a forum topic
// is answered in the topic (in the chat when the topic is gone); fragments sent in quick succession
// are one turn (and not confirmed to Telegram before they reach the gateway); typing is renewed while the agent works. Voice notes: voice.test.ts.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { GATEWAY_SERVICE, type GatewayService } from '../../../sdk/index.ts'
import { BOT, GROUPS, USERS } from './fake-telegram.ts'
import { harness } from './harness.ts'

test('a private message is answered in the chat, after typing', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', text: 'What is 2+2? Answer (briefly).' })
  assert.deepEqual(await h.posted(USERS.alice.id), ['answer to: What is 2+2? Answer (briefly).'])
  const sent = h.fake.sent[0]!
  assert.equal(sent.parseMode, 'MarkdownV2')
  assert.equal(sent.text, 'answer to: What is 2\\+2? Answer \\(briefly\\)\\.')
  assert.ok(h.fake.actions.some((a) => a.chatId === String(USERS.alice.id) && a.action === 'typing'))
  assert.deepEqual(h.prompts(), ['What is 2+2? Answer (briefly).'])
})

test('in groups: a mention, a reply to the bot, a free-response chat are answered; the rest runs nothing', async (t) => {
  const h = await harness(t, { env: { TELEGRAM_FREE_RESPONSE_CHATS: String(GROUPS.free.id) } })
  await h.start()
  h.fake.message({ from: 'bob', group: 'general', text: 'humans talking' })
  h.fake.message({ from: 'bob', group: 'general', text: 'hey @someone_else look' })
  h.fake.message({ from: 'mallory', group: 'general', text: 'let me in', mention: true })
  h.fake.message({ from: 'otherBot', group: 'general', text: 'bot chatter', mention: true })
  h.fake.message({ from: 'bob', group: 'general', text: '/new@helper_bot' })
  h.fake.message({ from: 'bob', group: 'general', text: 'summarise the thread', mention: true })
  assert.deepEqual(await h.posted(GROUPS.general.id), ['answer to: summarise the thread'])
  h.fake.message({ from: 'alice', group: 'general', text: 'and a follow-up', replyTo: 'bot' })
  assert.deepEqual(await h.posted(GROUPS.general.id, 2), ['answer to: summarise the thread', 'answer to: and a follow-up'])
  h.fake.message({ from: 'bob', group: 'free', text: 'free chat, no mention' })
  assert.deepEqual(await h.posted(GROUPS.free.id), ['answer to: free chat, no mention'])
  await sleep(300)
  assert.deepEqual(h.prompts(), ['summarise the thread', 'and a follow-up', 'free chat, no mention'])
})

test('an allowlist entry that is not a numeric id is warned about and matches nobody', async (t) => {
  const h = await harness(t, { env: { TELEGRAM_ALLOWED_USERS: `@alice,${USERS.bob.id}`, TELEGRAM_GROUP_ALLOWED_USERS: `*,${GROUPS.general.id}` } })
  await h.start()
  assert.deepEqual(h.log.lines.filter((l) => l.includes('is not a numeric Telegram id')), ['warn: TELEGRAM_ALLOWED_USERS: "@alice" is not a numeric Telegram id and never matches (a user\'s id comes from @userinfobot, or approve their pairing code)'])
  h.fake.message({ from: 'alice', text: 'am I in?' })
  h.fake.message({ from: 'bob', text: 'bob is' })
  assert.deepEqual(await h.posted(USERS.bob.id), ['answer to: bob is'])
  await sleep(200)
  assert.deepEqual(h.fake.posted(USERS.alice.id), [])
})

test('allowlists under platforms.telegram.extra in config.yaml work like the variables', async (t) => {
  const h = await harness(t, { env: { TELEGRAM_ALLOWED_USERS: undefined, TELEGRAM_GROUP_ALLOWED_USERS: undefined }, extra: { allowed_users: [USERS.bob.id], group_allowed_users: String(USERS.alice.id) } })
  await h.start()
  h.fake.message({ from: 'alice', text: 'not in the DM list' })
  h.fake.message({ from: 'bob', group: 'general', text: 'not in the group list', mention: true })
  h.fake.message({ from: 'bob', text: 'in the DM list' })
  h.fake.message({ from: 'alice', group: 'general', text: 'in the group list', mention: true })
  assert.deepEqual(await h.posted(USERS.bob.id), ['answer to: in the DM list'])
  assert.deepEqual(await h.posted(GROUPS.general.id), ['answer to: in the group list'])
  await sleep(200)
  assert.deepEqual(h.prompts().sort(), ['in the DM list', 'in the group list'])
})

test('TELEGRAM_REQUIRE_MENTION=false answers every group message of an allowed sender', async (t) => {
  const h = await harness(t, { env: { TELEGRAM_REQUIRE_MENTION: 'false' } })
  await h.start()
  h.fake.message({ from: 'bob', group: 'general', text: 'no mention needed' })
  assert.deepEqual(await h.posted(GROUPS.general.id), ['answer to: no mention needed'])
})

test('a forum topic is answered in the topic; a deleted topic gets the answer in the chat', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'bob', group: 'forum', topic: 42, text: 'in a topic', mention: true })
  await h.posted(GROUPS.forum.id)
  assert.equal(h.fake.sent[0]!.threadId, 42)
  assert.ok(h.fake.actions.some((a) => a.threadId === 42), 'typing in the topic')
  h.fake.deleteTopic(43)
  h.fake.message({ from: 'bob', group: 'forum', topic: 43, text: 'topic about to vanish', mention: true })
  const all = await h.posted(GROUPS.forum.id, 2)
  assert.equal(all[1], 'answer to: topic about to vanish')
  assert.equal(h.fake.sent[1]!.threadId, undefined)
  assert.ok(h.log.lines.some((l) => /the forum topic 43 of chat .* is gone/.test(l)))
})

test('fragments sent in quick succession become one turn', async (t) => {
  const h = await harness(t, { extra: { batch_window_ms: 400 } })
  await h.start()
  h.fake.message({ from: 'alice', text: 'first line' })
  h.fake.message({ from: 'alice', text: 'second line' })
  h.fake.message({ from: 'alice', text: 'third line' })
  assert.deepEqual(await h.posted(USERS.alice.id), ['answer to: first line\nsecond line\nthird line'])
  await sleep(300)
  assert.deepEqual(h.prompts(), ['first line\nsecond line\nthird line'])
})

test('a document is described to the agent with its caption, mention removed', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'bob', group: 'general', text: 'read this', mention: true, document: { file_name: 'notes.pdf', mime_type: 'application/pdf', file_size: 2048 } })
  await h.posted(GROUPS.general.id)
  assert.deepEqual(h.prompts(), ['read this\n[document: notes.pdf (application/pdf, 2 KB)]'])
  assert.ok(!h.prompts()[0]!.includes(BOT.username))
})

test('held fragments are not confirmed to Telegram before they reach the gateway', async (t) => {
  const h = await harness(t, { extra: { batch_window_ms: 1500 } })
  await h.start()
  const confirmedBefore = h.fake.confirmed()
  h.fake.message({ from: 'alice', text: 'part one' })
  const first = h.fake.lastUpdate()
  h.fake.message({ from: 'alice', text: 'part two' })
  // Held: the adapter looks again without waiting, from the first held update.
  assert.ok(await h.fake.until(() => h.fake.requests.filter((r) => r.method === 'getUpdates' && r.body.timeout === 0 && r.body.offset === first).length >= 2, 3000))
  assert.ok(h.fake.confirmed() <= first, `confirmed ${h.fake.confirmed()} while ${first} is held (was ${confirmedBefore})`)
  const resume = h.k.kernel.services.require<GatewayService>(GATEWAY_SERVICE).resumePoint('telegram')
  const held = await resume.get()
  assert.ok(held === undefined || Number(held.split(':')[1]) <= first, `resume point ${held} passed the held update ${first}`)
  assert.deepEqual(await h.posted(USERS.alice.id), ['answer to: part one\npart two'])
  // Handed over: the resume point and Telegram's confirmation move past both.
  assert.ok(await h.fake.until(() => h.fake.confirmed() > first + 1, 5000))
  assert.equal(await resume.get(), `${BOT.id}:${first + 2}`)
})

test('typing is renewed while the agent works and stops with the answer', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', text: 'a slow question' })
  await h.posted(USERS.alice.id, 1, 20_000)
  const typing = () => h.fake.actions.filter((a) => a.chatId === String(USERS.alice.id) && a.action === 'typing').length
  assert.ok(typing() >= 2, `typing shown ${typing()} time(s) during a 6 s answer`)
  const after = typing()
  await sleep(4500)
  assert.equal(typing(), after, 'no typing after the answer')
})
