// The slack adapter in a real kernel with the real runtime (scripted model) and the official SDK
// clients against a loopback fake of Slack: who gets answered where (DMs, mentions, free-response
// channels, threads the bot is in), what the agent reads (mention stripped, Slack markup readable,
// files described), what is ignored (our own, bots', edits, strangers'), envelopes acknowledged.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { BOT_USER, CHANNELS, dmChannel, USERS } from './fake-slack.ts'
import { harness } from './harness.ts'

test('a DM from an allowed user is answered in the DM; every envelope is acknowledged', async (t) => {
  const h = await harness(t)
  await h.start()
  assert.equal(h.fake.connections(), 1)
  h.fake.message({ from: 'alice', text: 'What is the capital of France?' })
  assert.deepEqual(await h.posted(dmChannel('alice')), ['answer to: What is the capital of France?'])
  const post = h.fake.posted[0]!
  assert.equal(post.thread_ts, undefined, 'a DM outside a thread is answered outside a thread')
  assert.equal(post.body.mrkdwn, 'true')
  assert.equal(h.fake.acks.length, 1, 'the one envelope acknowledged')
  assert.match(h.fake.acks[0]!.envelope_id, /^env-\d+$/)
  assert.deepEqual(h.prompts(), ['What is the capital of France?'])
  assert.ok(h.log.lines.some((l) => /^info: connected to Slack as agentbot in Test Team \(Socket Mode\)/.test(l)), h.log.lines.join('\n'))
})

test('channels: a mention is needed (stripped) and answered in the message thread; free-response channels need none', async (t) => {
  const h = await harness(t, { env: { SLACK_FREE_RESPONSE_CHANNELS: CHANNELS.free } })
  await h.start()

  h.fake.message({ from: 'alice', channel: 'general', text: 'just chatting among humans' })
  const ts = h.fake.message({ from: 'alice', channel: 'general', text: `<@${BOT_USER}> what time is it?`, appMention: true })
  assert.deepEqual(await h.posted(CHANNELS.general), ['answer to: what time is it?'])
  assert.equal(h.fake.posted[0]!.thread_ts, ts, 'answered in a thread under the message')

  // A follow-up in that thread needs no mention; one in another thread does.
  h.fake.message({ from: 'alice', channel: 'general', text: 'and tomorrow?', thread_ts: ts })
  assert.deepEqual(await h.posted(CHANNELS.general, 2, ts), ['answer to: what time is it?', 'answer to: and tomorrow?'])
  h.fake.message({ from: 'alice', channel: 'general', text: 'unrelated thread', thread_ts: '1600000000.000100' })

  // A stranger's mention does not make a thread the bot follows.
  const strangers = h.fake.message({ from: 'mallory', channel: 'general', text: `<@${BOT_USER}> hi` })
  await sleep(200)
  h.fake.message({ from: 'alice', channel: 'general', text: 'humans in the stranger thread', thread_ts: strangers })

  const free = h.fake.message({ from: 'bob', channel: 'free', text: 'free channel, no mention' })
  assert.deepEqual(await h.posted(CHANNELS.free), ['answer to: free channel, no mention'])
  assert.equal(h.fake.posted.at(-1)!.thread_ts, free)
  await sleep(300)
  assert.deepEqual(h.prompts(), ['what time is it?', 'and tomorrow?', 'free channel, no mention'], 'the app_mention twin of a message runs nothing more')
})

test('what the agent reads: Slack markup made readable, files described', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', text: 'see <https://example.com/a?b=1&amp;c=2|the page>, ask <@U0BOB00001> in <#C0GENERAL1|general> &lt;now&gt;', files: [{ name: 'report.pdf', mimetype: 'application/pdf', size: 2048 }] })
  await h.posted(dmChannel('alice'))
  assert.deepEqual(h.prompts(), [`see the page (https://example.com/a?b=1&c=2), ask @U0BOB00001 in #general <now>\n[attachment: report.pdf (application/pdf, 2 KB) https://files.slack.com/files-pri/T0TESTTEAM/report.pdf]`])
})

test('ignored: our own messages, bots, edits and joins, strangers; a stranger DM gets a pairing code when no allowlist is set', async (t) => {
  await t.test('allowlist set', async (st) => {
    const h = await harness(st)
    await h.start()
    h.fake.message({ from: 'alice', text: 'from a bot', bot_id: 'B0OTHERBOT' })
    h.fake.message({ from: 'alice', text: 'edited', subtype: 'message_changed' })
    h.fake.message({ from: 'alice', text: 'joined', subtype: 'channel_join', channel: 'general' })
    h.fake.message({ from: 'mallory', text: 'let me in' })
    h.fake.message({ from: 'mallory', channel: 'general', text: `<@${BOT_USER}> me too` })
    h.fake.message({ from: 'alice', text: '   ' })
    h.fake.message({ from: 'alice', text: 'ping' })
    await h.posted(dmChannel('alice'))
    await sleep(200)
    assert.deepEqual(h.prompts(), ['ping'])
    assert.deepEqual(h.drops.map((d) => [d.adapter, d.message.reason, d.message.userId]), [['slack', 'a message without text or files', USERS.alice]], 'only the empty message is a drop')
    assert.equal(h.fake.texts(dmChannel('mallory')).length + h.fake.texts(CHANNELS.general).length, 0)
  })
  await t.test('allowlist entries that are not member ids are warned about once each', async (st) => {
    const h = await harness(st, { env: { SLACK_ALLOWED_USERS: `@alice, ${USERS.alice}, *`, SLACK_GROUP_ALLOWED_USERS: 'bob@example.com' } })
    await h.start()
    assert.deepEqual(h.log.lines.filter((l) => l.startsWith('warn:')), [
      'warn: SLACK_ALLOWED_USERS: "@alice" is not a Slack member id and never matches (profile → ⋮ → Copy member ID, e.g. U0123456789; or approve their pairing code)',
      'warn: SLACK_GROUP_ALLOWED_USERS: "bob@example.com" is not a Slack member id and never matches (profile → ⋮ → Copy member ID, e.g. U0123456789; or approve their pairing code)',
    ])
  })
  await t.test('no allowlist: a pairing code in the DM, no run', async (st) => {
    const h = await harness(st, { env: { SLACK_ALLOWED_USERS: undefined, SLACK_GROUP_ALLOWED_USERS: undefined } })
    await h.start()
    h.fake.message({ from: 'mallory', text: 'hello?' })
    const [notice] = await h.posted(dmChannel('mallory'))
    assert.match(notice!, /Pairing code: [A-Z2-9]{8}/)
    assert.deepEqual(h.prompts(), [])
  })
})
