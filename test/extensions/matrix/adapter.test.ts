// The matrix adapter in a real kernel (gateway, gateway-auth, delivery, state-db) with a recording
// runtime, the real matrix-js-sdk and a loopback fake homeserver: conformance, enablement, DMs,
// strangers and pairing, mention-gated group rooms, commands, own and old events, edits and notices,
// invites, typing, long answers in parts, threads, encrypted rooms, and deliveries.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { DELIVERY_SERVICE, type DeliveryService } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel } from '../../../sdk/testing/index.ts'
import { BOT_ID, BOT_NAME, startFakeHomeserver } from './fake-homeserver.ts'
import { ALICE, BOB, CORE, harness, MALLORY, until } from './harness.ts'

test('adapter conformance', async (t) => {
  const hs = await startFakeHomeserver()
  t.after(() => hs.close())
  const env = { MATRIX_HOMESERVER: hs.url, MATRIX_ACCESS_TOKEN: hs.token }
  const config = (enabled?: boolean) => ({ platforms: { matrix: { ...(enabled === undefined ? {} : { enabled }), extra: { sync_timeout_ms: 1000 } } } })
  await adapterConformance(t, {
    adapter: 'matrix',
    enabled: () => createTestKernel({ builtins: CORE, env, config: config() }),
    disabled: () => createTestKernel({ builtins: CORE, env, config: config(false) }),
  })
  assert.ok(hs.requests.filter((r) => r.path.endsWith('/account/whoami')).length >= 2, 'start and restart each signed in')
})

test('enabled by a homeserver with credentials, platforms.matrix.enabled or MATRIX_ENABLED', async () => {
  const cases: Array<[Record<string, string>, Record<string, unknown> | undefined, boolean]> = [
    [{}, undefined, false],
    [{ MATRIX_HOMESERVER: 'https://m.example' }, undefined, false],
    [{ MATRIX_HOMESERVER: 'https://m.example', MATRIX_ACCESS_TOKEN: 't' }, undefined, true],
    [{ MATRIX_HOMESERVER: 'https://m.example', MATRIX_USER_ID: '@a:m.example' }, undefined, false],
    [{ MATRIX_HOMESERVER: 'https://m.example', MATRIX_USER_ID: '@a:m.example', MATRIX_PASSWORD: 'p' }, undefined, true],
    [{ MATRIX_HOMESERVER: 'https://m.example', MATRIX_ACCESS_TOKEN: 't' }, { enabled: false }, false],
    [{}, { enabled: true }, true],
    [{ MATRIX_ENABLED: 'yes' }, undefined, true],
  ]
  for (const [env, platform, expected] of cases) {
    const k = await createTestKernel({ builtins: CORE, env, ...(platform ? { config: { platforms: { matrix: platform } } } : {}) })
    try {
      assert.equal(k.kernel.registries.adapters.get('matrix')!.enabled(k.kernel.settings), expected, JSON.stringify({ env, platform }))
    } finally {
      await k.close()
    }
  }
})

test('a DM from an allowed user is answered in the same room: typing first, then body + formatted_body', async (t) => {
  const h = await harness(t)
  const room = h.hs.createRoom({ members: [{ id: ALICE, name: 'Alice' }] })
  await h.start()
  h.hs.message(room, ALICE, 'What is <the> capital of France?')
  await until(() => h.hs.sentTo(room).length === 1, 10_000, () => `an answer; lines: ${h.lines.join('\n')}`)
  const sent = h.hs.sentTo(room)[0]!.content
  assert.equal(sent.msgtype, 'm.text')
  assert.equal(sent.body, '**Answer** to: What is <the> capital of France?')
  assert.equal(sent.format, 'org.matrix.custom.html')
  assert.equal(sent.formatted_body, '<strong>Answer</strong> to: What is &lt;the&gt; capital of France?')
  assert.deepEqual(sent['m.mentions'], {}, 'answers never ping anyone')
  assert.deepEqual(h.inputs(), ['What is <the> capital of France?'])
  assert.deepEqual(h.runs[0]!.source, { platform: 'matrix', userId: ALICE, chatId: room })
  const typing = h.hs.typing.filter((x) => x.roomId === room)
  assert.deepEqual(typing[0], { roomId: room, userId: BOT_ID, typing: true, timeout: 30000 })
  const typingAt = h.hs.requests.findIndex((r) => r.path.includes('/typing/'))
  const sentAt = h.hs.requests.findIndex((r) => r.path.includes('/send/m.room.message/'))
  assert.ok(typingAt >= 0 && typingAt < sentAt, 'typing was shown before the answer')
  await until(() => h.hs.typing.some((x) => x.roomId === room && !x.typing), 5000, 'typing cleared after the answer')
})

test('a stranger gets nothing when an allowlist is set, and a pairing code in a DM when none is', async (t) => {
  await t.test('allowlist set: ignored', async (st) => {
    const h = await harness(st)
    const room = h.hs.createRoom({ members: [MALLORY] })
    await h.start()
    h.hs.message(room, MALLORY, 'let me in')
    await sleep(600)
    assert.equal(h.runs.length, 0)
    assert.equal(h.hs.sentTo(room).length, 0)
  })
  await t.test('no allowlist: a pairing code, and no run', async (st) => {
    const h = await harness(st, { env: { MATRIX_ALLOWED_USERS: undefined, MATRIX_GROUP_ALLOWED_USERS: undefined } })
    const room = h.hs.createRoom({ members: [MALLORY] })
    await h.start()
    h.hs.message(room, MALLORY, 'hello?')
    await until(() => h.hs.sentTo(room).length === 1, 10_000, 'the pairing code')
    assert.match(h.hs.sentTo(room)[0]!.content.body, /Pairing code: [A-Z2-9]{8}/)
    assert.equal(h.runs.length, 0)
  })
})

test('group rooms: unmentioned messages are ignored; mentions by m.mentions, user id, display name or pill are answered', async (t) => {
  const h = await harness(t)
  const room = h.hs.createRoom({ members: [ALICE, { id: BOB, name: 'Bob' }], name: 'Team' })
  await h.start()
  h.hs.message(room, BOB, 'just chatting among humans')
  h.hs.message(room, BOB, { msgtype: 'm.text', body: 'summarise the thread please', 'm.mentions': { user_ids: [BOT_ID] } })
  await until(() => h.hs.sentTo(room).length === 1, 10_000, 'the answer to the m.mentions message')
  h.hs.message(room, BOB, `${BOT_ID} what time is it?`)
  await until(() => h.hs.sentTo(room).length === 2, 10_000, 'the answer to the user-id mention')
  h.hs.message(room, ALICE, { msgtype: 'm.text', body: `${BOT_NAME}: and the weather?`, format: 'org.matrix.custom.html', formatted_body: `<a href="https://matrix.to/#/${BOT_ID}">${BOT_NAME}</a>: and the weather?` })
  await until(() => h.hs.sentTo(room).length === 3, 10_000, 'the answer to the pill')
  h.hs.message(room, ALICE, 'hey agent smith, one more')
  await until(() => h.hs.sentTo(room).length === 4, 10_000, 'the answer to the display name')
  assert.deepEqual(h.inputs(), ['summarise the thread please', 'what time is it?', 'and the weather?', 'hey agent smith, one more'])
  assert.deepEqual(h.runs.map((r) => r.source?.userId), [BOB, BOB, ALICE, ALICE])
  assert.ok(!h.inputs().some((i) => i.includes('chatting')))
  assert.ok(h.lines.some((l) => /ignored Matrix event \S+ in \S+: a group message that does not mention the bot/.test(l)))
})

test('group rooms: a sender outside the group allowlist gets nothing even when mentioning; require_mention false answers all', async (t) => {
  await t.test('stranger in a group', async (st) => {
    const h = await harness(st)
    const room = h.hs.createRoom({ members: [ALICE, MALLORY], name: 'Open room' })
    await h.start()
    h.hs.message(room, MALLORY, `${BOT_ID} do my bidding`)
    await sleep(600)
    assert.equal(h.runs.length, 0)
    assert.equal(h.hs.sentTo(room).length, 0, 'no pairing code in a group either')
  })
  await t.test('require_mention: false', async (st) => {
    const h = await harness(st, { extra: { require_mention: false } })
    const room = h.hs.createRoom({ members: [ALICE, BOB], name: 'Busy room' })
    await h.start()
    h.hs.message(room, BOB, 'no mention needed here')
    await until(() => h.hs.sentTo(room).length === 1, 10_000, 'the answer')
    assert.deepEqual(h.inputs(), ['no mention needed here'])
  })
  await t.test('free_response_rooms', async (st) => {
    const h = await harness(st, { extra: { free_response_rooms: ['!free:fake.test'] } })
    const free = h.hs.createRoom({ id: '!free:fake.test', members: [ALICE, BOB], name: 'Free' })
    const other = h.hs.createRoom({ members: [ALICE, BOB], name: 'Other' })
    await h.start()
    h.hs.message(other, BOB, 'not here')
    h.hs.message(free, BOB, 'but here')
    await until(() => h.hs.sentTo(free).length === 1, 10_000, 'the answer')
    await sleep(300)
    assert.deepEqual(h.inputs(), ['but here'])
  })
})

test('a known command needs no mention in a group; `!command` stands for `/command`', async (t) => {
  const h = await harness(t)
  const room = h.hs.createRoom({ members: [ALICE, BOB], name: 'Team' })
  await h.start()
  h.hs.message(room, BOB, '!help')
  await until(() => h.hs.sentTo(room).length === 1, 10_000, () => `the help text; lines: ${h.lines.join('\n')}`)
  assert.equal(h.runs.length, 0, 'a command is not an agent run')
  h.hs.message(room, BOB, '!unknowncommand please')
  await sleep(500)
  assert.equal(h.hs.sentTo(room).length, 1, 'an unknown !word in a group without a mention is ordinary chat')
})

test('our own messages, messages from before the start, edits and notices are never answered', async (t) => {
  const h = await harness(t)
  const room = h.hs.createRoom({ members: [ALICE] })
  h.hs.message(room, ALICE, 'history before the start')
  await h.start()
  h.hs.message(room, BOT_ID, 'sent by the bot from another device')
  h.hs.message(room, BOT_ID.toUpperCase().replace('@AGENT', '@Agent'), 'same user, other case')
  h.hs.message(room, ALICE, 'an old message delivered late', { ts: Date.now() - 3_600_000 })
  h.hs.message(room, ALICE, { msgtype: 'm.text', body: '* edited', 'm.new_content': { msgtype: 'm.text', body: 'edited' }, 'm.relates_to': { rel_type: 'm.replace', event_id: '$x' } })
  h.hs.message(room, ALICE, { msgtype: 'm.notice', body: 'a notice from a bot' })
  h.hs.message(room, ALICE, { msgtype: 'm.image', body: 'cat.png', url: 'mxc://fake.test/cat' })
  h.hs.message(room, ALICE, 'the only live message')
  await until(() => h.hs.sentTo(room).length === 1, 10_000, 'the answer')
  await sleep(500)
  assert.deepEqual(h.inputs(), ['the only live message'])
  assert.equal(h.hs.sentTo(room).length, 1, 'the bot did not answer its own answer')
})

test('invites: an allowed user\'s DM invite is joined and recorded in m.direct; a stranger\'s is ignored; a pending one is joined at start', async (t) => {
  const h = await harness(t)
  const pending = h.hs.invite(ALICE, { isDirect: true })
  await h.start()
  await until(() => h.hs.joins.includes(pending), 10_000, () => `the pending invite; lines: ${h.lines.join('\n')}`)
  const dm = h.hs.invite(ALICE, { isDirect: true })
  const stranger = h.hs.invite(MALLORY, { isDirect: true })
  const group = h.hs.invite(BOB, { name: 'Bob\'s room', others: [ALICE] })
  await until(() => h.hs.joins.includes(dm) && h.hs.joins.includes(group), 10_000, () => `the invites; lines: ${h.lines.join('\n')}`)
  await until(() => (h.hs.accountData.get('m.direct')?.[ALICE] ?? []).length === 2, 5000, 'm.direct')
  assert.deepEqual(h.hs.accountData.get('m.direct'), { [ALICE]: [pending, dm] })
  await sleep(300)
  assert.ok(!h.hs.joins.includes(stranger), 'the stranger\'s invite was not accepted')
  assert.ok(h.lines.some((l) => l === `info: ignored an invite to ${stranger} from ${MALLORY}: not in any allowlist`), h.lines.join('\n'))
  assert.ok(h.lines.some((l) => l === `info: joined ${dm} (invited by ${ALICE}, direct chat)`))
  h.hs.message(dm, ALICE, 'thanks for joining')
  await until(() => h.hs.sentTo(dm).length === 1, 10_000, 'the answer in the joined DM')
})

test('invites: the history a joined room brings along is not answered; the next message is', async (t) => {
  const h = await harness(t)
  await h.start()
  const room = h.hs.invite(ALICE, { isDirect: true })
  h.hs.message(room, ALICE, 'asked ten minutes before the invite', { ts: Date.now() - 600_000 })
  await until(() => h.hs.joins.includes(room), 10_000, 'the join')
  await until(() => h.lines.some((l) => l.includes(`sent before the adapter started or joined ${room}`)), 5000, () => `the history skipped; ${h.lines.join('\n')}`)
  h.hs.message(room, ALICE, 'a live question')
  await until(() => h.hs.sentTo(room).length === 1, 10_000, 'the answer')
  assert.deepEqual(h.inputs(), ['a live question'])
})

test('invites: without any allowlist a stranger\'s DM invite is accepted so they can get a pairing code; a group invite is not', async (t) => {
  const h = await harness(t, { env: { MATRIX_ALLOWED_USERS: undefined, MATRIX_GROUP_ALLOWED_USERS: undefined } })
  await h.start()
  const dm = h.hs.invite(MALLORY, { isDirect: true })
  const group = h.hs.invite(MALLORY, { name: 'Mallory\'s room', others: [BOB] })
  await until(() => h.hs.joins.includes(dm), 10_000, () => `the join; ${h.lines.join('\n')}`)
  h.hs.message(dm, MALLORY, 'hi, who are you?')
  await until(() => h.hs.sentTo(dm).length === 1, 10_000, 'the pairing code')
  assert.match(h.hs.sentTo(dm)[0]!.content.body, /Pairing code: [A-Z2-9]{8}/)
  assert.equal(h.runs.length, 0)
  assert.ok(!h.hs.joins.includes(group))
})

test('invites: with auto_join off nothing is joined', async (t) => {
  const h = await harness(t, { extra: { auto_join: false } })
  await h.start()
  const dm = h.hs.invite(ALICE, { isDirect: true })
  await until(() => h.lines.some((l) => l.includes(`ignored an invite to ${dm}`)), 5000, 'the log line')
  assert.deepEqual(h.hs.joins, [])
})

test('a long answer arrives in parts of at most max_message_length, code fences balanced, each with HTML', async (t) => {
  const long = `# Report\n\n${Array.from({ length: 40 }, (_, i) => `## Section ${i}\n\n${'Some **bold** words and `code`. '.repeat(12)}`).join('\n\n')}\n\n\`\`\`sh\n${'echo line\n'.repeat(150)}\`\`\``
  const h = await harness(t, { answer: () => long, extra: { max_message_length: 2000 } })
  const room = h.hs.createRoom({ members: [ALICE] })
  await h.start()
  h.hs.message(room, ALICE, 'write the long report')
  await until(() => h.hs.sentTo(room).length >= 2 && h.lines.some((l) => l.includes('Matrix message(s) to')), 10_000, 'the parts')
  const parts = h.hs.sentTo(room).map((s) => s.content)
  assert.ok(parts.length >= 6, `${parts.length} parts`)
  for (const part of parts) {
    assert.ok(part.body.length <= 2000, `a part of ${part.body.length} characters`)
    assert.equal((part.body.match(/^```/gm) ?? []).length % 2, 0, 'fences balanced')
    assert.ok(part.formatted_body.length > 0 && !part.formatted_body.includes('**'))
  }
  const joined = parts.map((p) => p.body).join('\n')
  for (const section of [0, 20, 39]) assert.match(joined, new RegExp(`## Section ${section}\\n`))
  assert.match(parts.at(-1)!.formatted_body, /<pre><code class="language-sh">(echo line\n)+echo line<\/code><\/pre>$/)
})

test('a message in a thread is answered in that thread', async (t) => {
  const h = await harness(t)
  const room = h.hs.createRoom({ members: [ALICE, BOB], name: 'Team' })
  await h.start()
  const root = h.hs.message(room, BOB, 'a thread root nobody asked the bot about')
  const inThread = h.hs.message(room, ALICE, { msgtype: 'm.text', body: `${BOT_ID} answer here`, 'm.relates_to': { rel_type: 'm.thread', event_id: root, is_falling_back: true, 'm.in_reply_to': { event_id: root } } })
  await until(() => h.hs.sentTo(room).length === 1, 10_000, () => `the answer; ${h.lines.join('\n')}`)
  assert.deepEqual(h.hs.sentTo(room)[0]!.content['m.relates_to'], { rel_type: 'm.thread', event_id: root, is_falling_back: true, 'm.in_reply_to': { event_id: inThread } })
  assert.deepEqual(h.inputs(), ['answer here'])
  assert.equal((h.runs[0]!.extra as any)?.gateway?.sessionKey, `agent:main:matrix:group:${room}:${root}:${ALICE}`, 'the thread is its own session')
})

test('a reply to one of the bot\'s messages needs no mention; the quoted fallback is removed', async (t) => {
  const h = await harness(t)
  const room = h.hs.createRoom({ members: [ALICE, BOB], name: 'Team' })
  await h.start()
  h.hs.message(room, BOB, `${BOT_ID} first question`)
  await until(() => h.hs.sentTo(room).length === 1, 10_000, 'the first answer')
  const answer = h.hs.sentTo(room)[0]!.eventId
  h.hs.message(room, BOB, { msgtype: 'm.text', body: `> <${BOT_ID}> **Answer** to: first question\n\nfollow-up without a mention`, 'm.relates_to': { 'm.in_reply_to': { event_id: answer } } })
  await until(() => h.hs.sentTo(room).length === 2, 10_000, () => `the second answer; ${h.lines.join('\n')}`)
  assert.deepEqual(h.inputs(), ['first question', 'follow-up without a mention'])
})

test('encrypted rooms: logged once, an allowed sender is told once in a plain notice, sends there are refused', async (t) => {
  const h = await harness(t)
  const room = h.hs.createRoom({ members: [ALICE], encrypted: true })
  await h.start()
  const encrypted = { algorithm: 'm.megolm.v1.aes-sha2', ciphertext: 'AwgAEnA', device_id: 'ALICEDEV', sender_key: 'abc', session_id: 'def' }
  h.hs.message(room, ALICE, encrypted, { type: 'm.room.encrypted' })
  h.hs.message(room, ALICE, encrypted, { type: 'm.room.encrypted' })
  await until(() => h.hs.sentTo(room).length === 1, 10_000, () => `the notice; ${h.lines.join('\n')}`)
  await sleep(400)
  const notices = h.hs.sentTo(room)
  assert.equal(notices.length, 1, 'told once')
  assert.equal(notices[0]!.content.msgtype, 'm.notice')
  assert.match(notices[0]!.content.body, /encrypted rooms are not supported/)
  assert.equal(h.lines.filter((l) => l.startsWith('warn:') && l.includes('is end-to-end encrypted')).length, 1)
  assert.equal(h.runs.length, 0)
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  await assert.rejects(delivery.send({ kind: 'chat', platform: 'matrix', chatId: room }, 'secret report'), /Matrix room \S+ is end-to-end encrypted; encrypted rooms are not supported/)
  assert.equal(h.hs.sentTo(room).length, 1, 'nothing sent in plain text')
})

test('deliveries: to a room and to the home channel while running, and from a process where the adapter is not running', async (t) => {
  const hs = await startFakeHomeserver()
  t.after(() => hs.close())
  const room = hs.createRoom({ members: [ALICE], name: 'Reports' })
  const h = await harness(t, { hs, env: { MATRIX_HOME_CHANNEL: room } })
  const delivery = h.k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
  const offline = await delivery.send({ kind: 'chat', platform: 'matrix' }, 'nightly report: **ok**')
  assert.equal(offline.parts, 1)
  assert.equal(hs.sentTo(room)[0]!.content.formatted_body, 'nightly report: <strong>ok</strong>')
  await h.start()
  await delivery.send({ kind: 'chat', platform: 'matrix', chatId: room }, 'second report')
  assert.equal(hs.sentTo(room)[1]!.content.body, 'second report')
  await assert.rejects(delivery.send({ kind: 'chat', platform: 'matrix', chatId: '!nowhere:fake.test' }, 'lost'), /cannot send to Matrix room !nowhere:fake\.test: HTTP 403 M_FORBIDDEN/)
})
