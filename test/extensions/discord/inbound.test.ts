// The discord adapter in a real kernel with the real runtime (scripted model) and the real discord.js
// client against a loopback fake of Discord: who gets answered where (DMs, mentions, replies, role
// mentions, free-response channels, threads), what the agent reads (mention stripped, attachments),
// what is ignored (our own, other bots', webhooks', strangers'), typing, long answers.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { BOT_ID, BOT_ROLE_ID, CHANNELS, dmChannel, USERS } from './fake-discord.ts'
import { harness, LONG_MARKER } from './harness.ts'

test('a DM from an allowed user is answered in its DM channel, typing shown first, no pings', async (t) => {
  const h = await harness(t)
  await h.start()
  assert.equal(h.fake.identifies().length, 1)
  const identify = h.fake.identifies()[0]!
  // Guilds (1), GuildMessages (512), DirectMessages (4096), MessageContent (32768).
  assert.equal(identify.d.intents, 1 | 512 | 4096 | 32768)
  assert.equal(identify.d.compress, false)
  h.fake.message({ from: 'alice', content: 'What is the capital of France?' })
  const [answer] = await h.posted(dmChannel('alice'))
  assert.equal(answer, 'answer to: What is the capital of France?')
  assert.deepEqual(h.fake.messages[0]!.body.allowed_mentions, { parse: [] })
  assert.equal(h.fake.typing[0], dmChannel('alice'))
  const typingAt = h.fake.requests.findIndex((r) => r.path.endsWith('/typing'))
  const postAt = h.fake.requests.findIndex((r) => r.method === 'POST' && r.path.endsWith('/messages'))
  assert.ok(typingAt >= 0 && typingAt < postAt, 'typing before the answer')
  assert.deepEqual(h.prompts(), ['What is the capital of France?'])
})

test('typing is renewed while the agent works longer than Discord shows the indicator', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', content: 'a slow question' })
  await h.posted(dmChannel('alice'), 1, 20_000)
  const typed = h.fake.typing.filter((c) => c === dmChannel('alice')).length
  assert.equal(typed, 2, 'shown, then renewed once after 8 s')
  const lastTyping = h.fake.requests.findLastIndex((r) => r.path.endsWith('/typing'))
  const answer = h.fake.requests.findIndex((r) => r.method === 'POST' && r.path.endsWith('/messages'))
  assert.ok(lastTyping < answer)
})

test('a stranger gets nothing when an allowlist is set; a pairing code in DM when none is', async (t) => {
  await t.test('allowlist set: ignored', async (st) => {
    const h = await harness(st)
    await h.start()
    h.fake.message({ from: 'mallory', content: 'let me in' })
    h.fake.message({ from: 'mallory', content: `<@${BOT_ID}> me too`, channel: 'general', mentions: ['bot'] })
    h.fake.message({ from: 'alice', content: 'ping' })
    await h.posted(dmChannel('alice'))
    await sleep(200)
    assert.deepEqual(h.prompts(), ['ping'])
    assert.equal(h.fake.posted(dmChannel('mallory')).length + h.fake.posted(CHANNELS.general).length, 0)
  })
  await t.test('no allowlist: a pairing code in the DM, no run', async (st) => {
    const h = await harness(st, { env: { DISCORD_ALLOWED_USERS: undefined, DISCORD_GROUP_ALLOWED_USERS: undefined } })
    await h.start()
    h.fake.message({ from: 'mallory', content: 'hello?' })
    const [notice] = await h.posted(dmChannel('mallory'))
    assert.match(notice!, /Pairing code: [A-Z2-9]{8}/)
    assert.match(notice!, /agent gateway pair approve/)
    assert.deepEqual(h.prompts(), [])
  })
})

test('server channels: a mention (or reply, or role mention) is needed and stripped; free-response channels need none', async (t) => {
  const h = await harness(t, { env: { DISCORD_FREE_RESPONSE_CHANNELS: CHANNELS.free } })
  await h.start()

  h.fake.message({ from: 'alice', channel: 'general', content: 'just chatting among humans' })
  h.fake.message({ from: 'alice', channel: 'general', content: `<@${BOT_ID}> what time is it?`, mentions: ['bot'] })
  const [first] = await h.posted(CHANNELS.general)
  assert.equal(first, 'answer to: what time is it?')

  h.fake.message({ from: 'bob', channel: 'general', content: `hey <@!${BOT_ID}>, summarise this`, mentions: ['bot'] })
  await h.posted(CHANNELS.general, 2)
  h.fake.message({ from: 'bob', channel: 'general', content: `<@&${BOT_ROLE_ID}> role mention`, mentionRoles: [BOT_ROLE_ID] })
  await h.posted(CHANNELS.general, 3)
  h.fake.message({ from: 'bob', channel: 'general', content: 'and a reply to you', replyTo: { id: '960000000000000001', author: 'bot' } })
  await h.posted(CHANNELS.general, 4)
  h.fake.message({ from: 'bob', channel: 'general', content: 'a reply to alice', replyTo: { id: '960000000000000002', author: 'alice' } })
  h.fake.message({ from: 'alice', channel: 'free', content: 'no mention needed here' })
  const [free] = await h.posted(CHANNELS.free)
  assert.equal(free, 'answer to: no mention needed here')
  await sleep(200)
  assert.deepEqual(h.prompts(), ['what time is it?', 'hey, summarise this', 'role mention', 'and a reply to you', 'no mention needed here'])
  assert.equal(h.fake.posted(CHANNELS.general).length, 4)
  assert.ok(h.log.lines.some((l) => l.includes('a server message that does not mention the bot')))
})

test('DISCORD_REQUIRE_MENTION=false answers every allowed server message', async (t) => {
  const h = await harness(t, { env: { DISCORD_REQUIRE_MENTION: 'false' } })
  await h.start()
  h.fake.message({ from: 'alice', channel: 'general', content: 'no mention' })
  assert.deepEqual(await h.posted(CHANNELS.general), ['answer to: no mention'])
})

test('a thread message is answered in the thread (typing there too), as its own conversation', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', channel: 'thread', content: `<@${BOT_ID}> in the thread`, mentions: ['bot'] })
  assert.deepEqual(await h.posted(CHANNELS.thread), ['answer to: in the thread'])
  assert.ok(h.fake.typing.includes(CHANNELS.thread))
  assert.equal(h.fake.posted(CHANNELS.general).length, 0, 'nothing in the parent channel')
})

test('our own messages, other bots and webhooks are ignored', async (t) => {
  const h = await harness(t, { env: { DISCORD_REQUIRE_MENTION: 'false', DISCORD_GROUP_ALLOWED_USERS: '*', DISCORD_ALLOW_ALL_USERS: 'true' } })
  await h.start()
  h.fake.dispatch('MESSAGE_CREATE', { id: '970000000000000001', type: 0, channel_id: CHANNELS.general, guild_id: '910000000000000001', channel_type: 0, author: { id: BOT_ID, username: 'agentbot', discriminator: '0', bot: true, avatar: null }, content: 'my own echo', timestamp: new Date().toISOString(), edited_timestamp: null, tts: false, mention_everyone: false, mentions: [], mention_roles: [], attachments: [], embeds: [], pinned: false, flags: 0 })
  h.fake.message({ from: 'otherBot', channel: 'general', content: `<@${BOT_ID}> I am a bot`, mentions: ['bot'] })
  h.fake.message({ from: 'otherBot', content: 'bot DM' })
  h.fake.message({ from: 'alice', channel: 'general', content: 'via a webhook', webhook: true })
  h.fake.message({ from: 'alice', channel: 'general', content: 'a person' })
  assert.deepEqual(await h.posted(CHANNELS.general), ['answer to: a person'])
  await sleep(200)
  assert.deepEqual(h.prompts(), ['a person'])
  for (const reason of ['our own message', "a bot's message", 'a webhook message']) assert.ok(h.log.lines.some((l) => l.includes(reason)), reason)
})

test('attachments are described to the agent; a message with only an attachment is answered', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', content: 'what is in this file?', attachments: [{ filename: 'notes.txt', content_type: 'text/plain', size: 2048 }] })
  await h.posted(dmChannel('alice'))
  h.fake.message({ from: 'alice', content: '', attachments: [{ filename: 'photo.png', content_type: 'image/png', size: 3 * 1024 * 1024 }] })
  await h.posted(dmChannel('alice'), 2)
  const [first, second] = h.prompts()
  assert.match(first!, /^what is in this file\?\n\[attachment: notes\.txt \(text\/plain, 2 KB\) https:\/\/cdn\.discordapp\.com\/attachments\/\d+\/\d+\/notes\.txt\]$/)
  assert.match(second!, /^\[attachment: photo\.png \(image\/png, 3\.0 MB\) https:\/\/cdn\.discordapp\.com\/.*photo\.png\]$/)
})

test('a long answer arrives in parts under 2000 characters, code fences balanced', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', content: `write the ${LONG_MARKER}` })
  await h.posted(dmChannel('alice'), 3)
  await sleep(300)
  const parts = h.fake.posted(dmChannel('alice'))
  assert.ok(parts.length >= 3, `${parts.length} parts`)
  for (const [i, part] of parts.entries()) {
    assert.ok(part.length <= 2000, `part ${i} has ${part.length} characters`)
    assert.equal((part.match(/^```/gm) ?? []).length % 2, 0, `part ${i} has an unbalanced code fence:\n${part}`)
  }
  const joined = parts.join('\n')
  for (const needle of ['# Report', 'Paragraph 0:', 'Paragraph 39:', 'print("line 0 of the program")', 'print("line 119 of the program")', 'The end.']) assert.ok(joined.includes(needle), needle)
  assert.ok(parts.some((p) => p.startsWith('```python\n    print(')), 'a part reopens the python fence')
})
