// The bridge's message rules (bridge/filter.mjs, pure): the reply header's three cases; the header
// only on answers in the owner's own chat in self-chat mode; echo suppression by header and by sent
// id (so an empty header does not reopen the loop) while the owner's own words pass; bot mode drops
// the account's every message; broadcasts, reactions and empty messages ignored; the text inside
// wrappers; stable ids with LID aliases.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isOwnChat, normaliseJid, outgoingText, readIncoming, resolveReplyPrefix, SentIds, stableId, textOf, type FilterContext } from '../../../extensions/whatsapp/bridge/filter.mjs'

const ME = { id: '15550000001:7@s.whatsapp.net', lid: '99990000001:7@lid' }
const OWN = '15550000001@s.whatsapp.net'
const ALICE = '15550001111@s.whatsapp.net'
const GROUP = '120363000000000001@g.us'
const HEADER = '🤖 *Agent*\n'

const ctx = (over: Partial<FilterContext> = {}): FilterContext => ({ mode: 'self-chat', prefix: HEADER, me: ME, sent: new SentIds(), ...over })
const raw = (remoteJid: string, text: string, key: Record<string, unknown> = {}) => ({ key: { remoteJid, id: `ID${Math.random()}`, fromMe: false, ...key }, message: { conversation: text }, messageTimestamp: 1_700_000_000, pushName: 'Alice' })
const reason = (r: ReturnType<typeof readIncoming>) => (r.ok ? 'accepted' : r.reason)

test('reply_prefix: unset → the default header naming the agent; empty → none; `\\n` → newline', () => {
  assert.equal(resolveReplyPrefix(undefined), HEADER)
  assert.equal(resolveReplyPrefix(undefined, 'Jarvis'), '🤖 *Jarvis*\n')
  assert.equal(resolveReplyPrefix(''), '')
  assert.equal(resolveReplyPrefix('[bot]\\n'), '[bot]\n')
  assert.equal(resolveReplyPrefix('a\\nb\\n'), 'a\nb\n')
  // A real newline stays one; a lone backslash is not a newline.
  assert.equal(resolveReplyPrefix('x\n'), 'x\n')
  assert.equal(resolveReplyPrefix('C:\\path '), 'C:\\path ')
})

test('the header goes on answers in the owner\'s own chat in self-chat mode only', () => {
  const c = ctx()
  assert.equal(outgoingText('hi', OWN, c), `${HEADER}hi`)
  assert.equal(outgoingText('hi', '99990000001@lid', c), `${HEADER}hi`)
  assert.equal(outgoingText('hi', ALICE, c), 'hi', 'another contact never gets it')
  assert.equal(outgoingText('hi', GROUP, c), 'hi')
  assert.equal(outgoingText('hi', OWN, ctx({ mode: 'bot' })), 'hi', 'bot mode needs no header')
  assert.equal(outgoingText('hi', OWN, ctx({ prefix: '' })), 'hi')
})

test('self-chat: the owner\'s words in their own chat are input; our echo is not, by header or by id', () => {
  const c = ctx()
  const own = readIncoming(raw(OWN, 'remind me at 5', { fromMe: true }), c)
  assert.ok(own.ok)
  assert.deepEqual({ sender: own.message.senderId, chat: own.message.chatId, selfChat: own.message.selfChat, aliases: own.message.senderAliases }, { sender: '+15550000001', chat: OWN, selfChat: true, aliases: ['99990000001@lid'] })
  assert.equal(reason(readIncoming(raw(OWN, `${HEADER}the answer`, { fromMe: true }), c)), 'the echo of a message we sent (prefix)')
  assert.equal(reason(readIncoming(raw(OWN, '🤖 *Agent*the answer, newline trimmed by a client', { fromMe: true }), c)), 'the echo of a message we sent (prefix)')
  c.sent.remember('SENT1')
  assert.equal(reason(readIncoming(raw(OWN, 'the answer without header', { fromMe: true, id: 'SENT1' }), c)), 'the echo of a message we sent (id)')
})

test('self-chat with an empty header: the echo is still dropped by its id; the owner still gets through', () => {
  const c = ctx({ prefix: '' })
  c.sent.remember('SENT2')
  assert.equal(reason(readIncoming(raw(OWN, 'our answer', { fromMe: true, id: 'SENT2' }), c)), 'the echo of a message we sent (id)')
  assert.equal(reason(readIncoming(raw(OWN, 'my own question', { fromMe: true, id: 'OTHER' }), c)), 'accepted')
})

test('self-chat: the owner\'s messages in other chats are never input; other people\'s are', () => {
  const c = ctx()
  assert.equal(reason(readIncoming(raw(ALICE, 'hi Alice', { fromMe: true }), c)), "the owner's message in another chat")
  assert.equal(reason(readIncoming(raw(GROUP, 'hi all', { fromMe: true, participant: OWN }), c)), "the owner's message in another chat")
  const alice = readIncoming(raw(ALICE, 'hello agent'), c)
  assert.ok(alice.ok)
  assert.deepEqual({ sender: alice.message.senderId, chat: alice.message.chatId, type: alice.message.chatType, name: alice.message.senderName, ts: alice.message.timestamp }, { sender: '+15550001111', chat: ALICE, type: 'dm', name: 'Alice', ts: 1_700_000_000_000 })
})

test('bot mode: every message from the account itself is dropped, even in its own chat without a header', () => {
  const c = ctx({ mode: 'bot' })
  assert.equal(reason(readIncoming(raw(OWN, 'anything', { fromMe: true }), c)), 'from the account itself (bot mode)')
  assert.equal(reason(readIncoming(raw(ALICE, 'anything', { fromMe: true }), c)), 'from the account itself (bot mode)')
  assert.equal(reason(readIncoming(raw(ALICE, 'a question'), c)), 'accepted')
})

test('groups: the participant is the sender, with the LID alias when WhatsApp gives one', () => {
  const r = readIncoming(raw(GROUP, 'team question', { participant: '15550002222:3@s.whatsapp.net', participantLid: '88880002222@lid' }), ctx())
  assert.ok(r.ok)
  assert.deepEqual({ sender: r.message.senderId, aliases: r.message.senderAliases, type: r.message.chatType }, { sender: '+15550002222', aliases: ['88880002222@lid'], type: 'group' })
  const lidOnly = readIncoming(raw('77770003333@lid', 'hi', { senderPn: '15550003333@s.whatsapp.net' }), ctx())
  assert.ok(lidOnly.ok)
  assert.deepEqual({ sender: lidOnly.message.senderId, aliases: lidOnly.message.senderAliases }, { sender: '77770003333@lid', aliases: ['+15550003333'] })
})

test('status updates, broadcasts, channels, reactions, protocol messages and empty messages are ignored', () => {
  const c = ctx()
  assert.equal(reason(readIncoming(raw('status@broadcast', 'my story'), c)), 'a status, broadcast or channel message')
  assert.equal(reason(readIncoming(raw('1203630000@newsletter', 'news'), c)), 'a status, broadcast or channel message')
  assert.equal(reason(readIncoming({ key: { remoteJid: ALICE, id: 'R' }, message: { reactionMessage: { text: '👍' } } }, c)), 'a reaction')
  assert.equal(reason(readIncoming({ key: { remoteJid: ALICE, id: 'P' }, message: { protocolMessage: { type: 0 } } }, c)), 'a protocol message')
  assert.equal(reason(readIncoming(raw(ALICE, '   '), c)), 'no text')
  assert.equal(reason(readIncoming({ key: {} }, c)), 'no chat')
})

test('text inside wrappers (ephemeral, view once, edits, captions) and media notes', () => {
  assert.equal(textOf({ ephemeralMessage: { message: { extendedTextMessage: { text: 'vanishing' } } } }).text, 'vanishing')
  assert.equal(textOf({ viewOnceMessageV2: { message: { imageMessage: { caption: 'look', mimetype: 'image/jpeg' } } } }).text, 'look')
  assert.deepEqual(textOf({ imageMessage: { caption: 'look', mimetype: 'image/jpeg' } }).media, ['[image: image/jpeg]'])
  assert.equal(textOf({ protocolMessage: { type: 14, editedMessage: { conversation: 'fixed' } } }).text, 'fixed')
  const edited = readIncoming({ key: { remoteJid: ALICE, id: 'E' }, message: { protocolMessage: { type: 14, editedMessage: { conversation: 'fixed typo' } } } }, ctx())
  assert.equal(reason(edited), 'accepted')
  const doc = readIncoming({ key: { remoteJid: ALICE, id: 'D' }, message: { documentMessage: { mimetype: 'application/pdf', fileName: 'a.pdf' } } }, ctx())
  assert.ok(doc.ok && doc.message.text === '[document: application/pdf, a.pdf]')
})

test('ids: device suffixes dropped, phones as +digits, own chat by phone or LID; look-alikes refused', () => {
  assert.equal(normaliseJid('15550000001:7@s.whatsapp.net'), OWN)
  assert.equal(normaliseJid('no-server'), undefined)
  assert.equal(stableId('15550001111:2@s.whatsapp.net'), '+15550001111')
  assert.equal(stableId('99990000001@lid'), '99990000001@lid')
  assert.ok(isOwnChat(OWN, ME) && isOwnChat('99990000001@lid', ME))
  assert.ok(!isOwnChat('15550000002@s.whatsapp.net', ME))
  assert.ok(!isOwnChat('15550000001@g.us', ME))
})

test('the sent-id guard keeps the most recent ids in insertion order', () => {
  const sent = new SentIds(2)
  sent.remember('a')
  sent.remember('b')
  sent.remember('a')
  sent.remember('c')
  assert.equal(sent.size, 2)
  assert.ok(!sent.has('b') && sent.has('a') && sent.has('c'))
})
