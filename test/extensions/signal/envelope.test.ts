// Which signal-cli envelopes become messages for the agent (pure): DMs and group messages, our own
// number ignored, Note to Self accepted and its echo dropped, linked-device group messages,
// stories/receipts/typing/reactions ignored, edits accepted, mentions rendered; the echo guard's
// bound; chat ids in every accepted form and refused look-alikes.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { envelopeOf, readEnvelope, renderMentions, SentTimestamps, type Identity } from '../../../extensions/signal/envelope.ts'
import { chatIdOf, redacted, targetOf } from '../../../extensions/signal/ids.ts'
import { ACCOUNT, ACCOUNT_UUID, ALICE, BOB, dm, inGroup, ownSent, TEAM } from './fake-daemon.ts'

const me = (): Identity => ({ account: ACCOUNT })
const read = (envelope: Record<string, any>, sent = new SentTimestamps(), identity = me()) => readEnvelope(envelope as never, identity, sent)
const message = (envelope: Record<string, any>, sent?: SentTimestamps) => {
  const r = read(envelope, sent)
  assert.ok(r.ok, `not accepted: ${!r.ok && r.reason}`)
  return r.message
}
const reason = (envelope: Record<string, any>, sent?: SentTimestamps, identity?: Identity) => {
  const r = read(envelope, sent, identity)
  assert.ok(!r.ok, 'accepted')
  return r.reason
}

test('a DM: sender, chat, text and timestamp; a group message: the group in group.<id> form', () => {
  const e = dm(ALICE, 'hello')
  assert.deepEqual(message(e), { kind: 'message', sender: ALICE, senderName: 'Alice', chatId: ALICE, chatType: 'dm', text: 'hello', attachments: [], timestamp: e.timestamp })
  const g = message(inGroup(BOB, TEAM, 'hi all'))
  assert.equal(g.chatId, `group.${TEAM}`)
  assert.equal(g.chatType, 'group')
  assert.equal(g.sender, BOB)
})

test('the stream event wrapper {envelope, account} and a bare envelope are both read', () => {
  const e = dm(ALICE, 'x')
  assert.equal(envelopeOf({ envelope: e, account: ACCOUNT }), e)
  assert.equal(envelopeOf(e), e)
  assert.equal(envelopeOf({ account: ACCOUNT }), undefined)
  assert.equal(envelopeOf('text'), undefined)
})

test('our own number is ignored; a look-alike number one digit off is not', () => {
  assert.equal(reason(dm(ACCOUNT, 'loop')), 'our own number')
  assert.equal(reason({ ...dm(ALICE, 'loop'), sourceNumber: null, source: ACCOUNT_UUID, sourceUuid: ACCOUNT_UUID }, undefined, { account: ACCOUNT, uuid: ACCOUNT_UUID }), 'our own number')
  assert.equal(message(dm('+15550000002', 'neighbour')).sender, '+15550000002')
})

test('stories, receipts, typing, calls, reactions, deletions and empty messages are ignored', () => {
  const base = { source: ALICE, sourceNumber: ALICE, timestamp: 1 }
  assert.equal(reason({ ...base, storyMessage: { allowsReplies: true } }), 'a story')
  assert.equal(reason({ ...base, receiptMessage: { isDelivery: true, timestamps: [1] } }), 'a receipt')
  assert.equal(reason({ ...base, typingMessage: { action: 'STARTED' } }), 'a typing indicator')
  assert.equal(reason({ ...base, callMessage: { offerMessage: {} } }), 'a call')
  assert.equal(reason(dm(ALICE, '', { reaction: { emoji: '👍' } })), 'a reaction')
  assert.equal(reason(dm(ALICE, '', { remoteDelete: { timestamp: 1 } })), 'a deletion')
  // Stories, reactions and stickers someone sent are reported as dropped (unsupported), the rest just ignored.
  const unsupported = (envelope: Record<string, any>) => {
    const r = read(envelope)
    return r.ok ? undefined : r.unsupported
  }
  assert.deepEqual(unsupported({ ...base, storyMessage: {} }), { chatId: ALICE, sender: ALICE })
  assert.deepEqual(unsupported(inGroup(BOB, TEAM, '', { reaction: { emoji: '👍' } })), { chatId: `group.${TEAM}`, sender: BOB })
  assert.equal(reason(dm(ALICE, '', { sticker: { packId: 'p' } })), 'a sticker')
  assert.equal(unsupported(dm(ALICE, '', { remoteDelete: { timestamp: 1 } })), undefined)
  assert.equal(unsupported({ ...base, receiptMessage: {} }), undefined)
  assert.equal(reason(dm(ALICE, '   ')), 'no text or attachment')
  assert.equal(reason({ ...base, syncMessage: { readMessages: [{ timestamp: 1 }] }, sourceNumber: ACCOUNT }), 'a sync event (read marks, contacts …)')
})

test('Note to Self is accepted as a DM from the owner; its echo (a timestamp we sent) is not', () => {
  const sent = new SentTimestamps()
  const note = message(ownSent('remind me'), sent)
  assert.deepEqual({ kind: note.kind, sender: note.sender, chatId: note.chatId, chatType: note.chatType, text: note.text }, { kind: 'note-to-self', sender: ACCOUNT, chatId: ACCOUNT, chatType: 'dm', text: 'remind me' })
  sent.remember(4242)
  assert.equal(reason(ownSent('our answer', { timestamp: 4242 }), sent), 'the echo of a message we sent')
  // Consumed once: the same timestamp again is a message (nothing we sent is waiting for it).
  assert.equal(message(ownSent('later', { timestamp: 4242 }), sent).text, 'later')
})

test('a group message the owner wrote on a linked device is handled; their message to a contact is not', () => {
  const linked = message(ownSent('team, lunch?', { groupId: TEAM }))
  assert.deepEqual({ kind: linked.kind, sender: linked.sender, chatId: linked.chatId, chatType: linked.chatType }, { kind: 'linked-device', sender: ACCOUNT, chatId: `group.${TEAM}`, chatType: 'group' })
  assert.equal(reason(ownSent('hi Bob', { to: BOB })), 'our own message to a contact, sent from a linked device')
  // A sync message claiming to come from someone else is not ours.
  assert.equal(reason({ ...ownSent('spoof'), source: ALICE, sourceNumber: ALICE, sourceUuid: null }), 'a sync message from another account')
})

test('an edit is read as a new message with the edited text', () => {
  const edit = { source: ALICE, sourceNumber: ALICE, timestamp: 99, editMessage: { targetSentTimestamp: 98, dataMessage: { timestamp: 99, message: 'fixed typo' } } }
  const m = message(edit)
  assert.equal(m.kind, 'edit')
  assert.equal(m.text, 'fixed typo')
  assert.equal(m.timestamp, 99)
})

test('mentions: each placeholder becomes @name (number, then uuid, when there is no name)', () => {
  const text = '\uFFFC and \uFFFC, look'
  assert.equal(renderMentions(text, [{ start: 0, length: 1, name: 'Bob' }, { start: 6, length: 1, uuid: ALICE }]), `@Bob and @${ALICE}, look`)
  assert.equal(renderMentions('no placeholder', [{ start: 0, length: 1, name: 'x' }]), 'no placeholder')
  assert.equal(renderMentions('\uFFFC', [{ start: 5, length: 1, name: 'out of range' }]), '\uFFFC')
  assert.equal(message(inGroup(BOB, TEAM, '\uFFFC summarise', { mentions: [{ start: 0, length: 1, name: 'Agent', number: ACCOUNT }] })).text, '@Agent summarise')
})

test('the echo guard keeps the most recent sent timestamps in insertion order', () => {
  const sent = new SentTimestamps(3)
  for (const t of [1, 2, 3]) sent.remember(t)
  sent.remember(1) // re-sent: now the most recent
  sent.remember(4) // evicts 2, the oldest
  assert.equal(sent.size, 3)
  assert.equal(sent.consume(2), false)
  assert.equal(sent.consume(1), true)
  assert.equal(sent.consume(3), true)
  assert.equal(sent.consume(4), true)
  assert.equal(sent.consume(undefined), false)
})

test('chat ids: numbers, UUIDs, group.<id> and raw group ids; anything else is refused', () => {
  assert.deepEqual(targetOf(ALICE), { recipient: ALICE })
  assert.deepEqual(targetOf('+1 (555) 000-1111'), { recipient: ALICE })
  assert.deepEqual(targetOf(ACCOUNT_UUID.toUpperCase()), { recipient: ACCOUNT_UUID })
  assert.deepEqual(targetOf(`group.${TEAM}`), { groupId: TEAM })
  assert.deepEqual(targetOf(TEAM), { groupId: TEAM })
  assert.equal(chatIdOf(targetOf(TEAM)), `group.${TEAM}`)
  for (const bad of ['alice', '12345', 'group.', 'group.short', '+0123', '']) assert.throws(() => targetOf(bad), /not a Signal chat id/, bad)
})

test('log form: numbers redacted, groups shortened', () => {
  assert.equal(redacted(ALICE), '+155****1111')
  assert.equal(redacted(`group.${TEAM}`), 'group.Pmpi+E…')
  assert.equal(redacted(undefined), '?')
})
