// The bridge core (bridge/core.mjs) over a simulated socket: nothing is sent before the socket is
// open (503); send and edit carry the header in the owner's own chat only; media are sent by type
// with the header on a caption; sent ids feed the echo guard; incoming messages are queued or not
// by the filter.

import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createBridgeCore, mediaContent } from '../../../extensions/whatsapp/bridge/core.mjs'

const ME = { id: '15550000001:7@s.whatsapp.net' }
const OWN = '15550000001@s.whatsapp.net'
const ALICE = '15550001111@s.whatsapp.net'

function simulated() {
  const calls: Array<{ jid: string; content: any }> = []
  let n = 0
  return {
    calls,
    sock: {
      async sendMessage(jid: string, content: any) {
        calls.push({ jid, content })
        return { key: { id: `S${++n}` } }
      },
      async sendPresenceUpdate() {},
    },
  }
}

test('nothing is sent before the socket is open', async () => {
  const core = createBridgeCore({ mode: 'self-chat', prefix: 'H\n' })
  const { sock, calls } = simulated()
  core.attach(sock)
  await assert.rejects(core.handlers.send(ALICE, 'x'), (error: any) => error.status === 503)
  assert.deepEqual(calls, [])
  assert.deepEqual(core.handlers.health(), { status: 'connecting', mode: 'self-chat', me: null })
})

test('send, edit and media: the header in the own chat only; ids kept for the echo guard', async (t) => {
  const core = createBridgeCore({ mode: 'self-chat', prefix: 'H\n' })
  const { sock, calls } = simulated()
  core.attach(sock)
  core.opened(ME)
  assert.deepEqual(await core.handlers.send(OWN, 'to me'), { id: 'S1' })
  await core.handlers.send(ALICE, 'to Alice')
  await core.handlers.edit(OWN, 'S1', 'fixed')
  const dir = mkdtempSync(join(tmpdir(), 'agent-wa-core-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'a.png'), 'PNG')
  await core.handlers.media(OWN, { path: join(dir, 'a.png'), mimetype: 'image/png', caption: 'look' })
  assert.deepEqual(calls.map((c) => [c.jid, c.content.text ?? c.content.caption]), [[OWN, 'H\nto me'], [ALICE, 'to Alice'], [OWN, 'H\nfixed'], [OWN, 'H\nlook']])
  assert.deepEqual(calls[2]!.content.edit, { remoteJid: OWN, fromMe: true, id: 'S1' })
  assert.equal(calls[3]!.content.image.toString(), 'PNG')
  assert.ok(core.sent.has('S1') && core.sent.has('S3') && !core.sent.has('S9'))
  // The echo of S1 is not input; the owner's own words are.
  assert.deepEqual(await core.receive([{ key: { remoteJid: OWN, fromMe: true, id: 'S1' }, message: { conversation: 'to me' } }, { key: { remoteJid: OWN, fromMe: true, id: 'X' }, message: { conversation: 'mine' } }]), [{ ok: false, reason: 'the echo of a message we sent (id)' }, { ok: true }])
  assert.equal(core.queue.size, 1)
})

test('media content by type', () => {
  const data = Buffer.from('x')
  assert.deepEqual(Object.keys(mediaContent(data, { mimetype: 'video/mp4' }, 'c')), ['video', 'caption'])
  assert.deepEqual(Object.keys(mediaContent(data, { mimetype: 'audio/ogg' })), ['audio', 'mimetype'])
  assert.deepEqual(mediaContent(data, { fileName: 'r.pdf' }), { document: data, mimetype: 'application/octet-stream', fileName: 'r.pdf', caption: undefined })
})

test('incoming media: saved in the media folder and noted in the text; too large or failing: said so', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-wa-media-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const core = createBridgeCore({ mode: 'bot', prefix: '', mediaDir: join(dir, 'media'), download: async (raw: any) => {
    if (raw.key.id === 'BROKEN') throw new Error('media expired')
    return Buffer.from(`bytes of ${raw.key.id}`)
  } })
  core.opened(ME)
  const image = (id: string, extra: Record<string, unknown> = {}) => ({ key: { remoteJid: ALICE, id }, message: { imageMessage: { mimetype: 'image/jpeg', caption: 'look', ...extra } } })
  await core.receive([image('IMG1'), image('BIG', { fileLength: 30 * 1024 * 1024 }), image('BROKEN'), { key: { remoteJid: ALICE, id: 'T' }, message: { conversation: 'plain' } }])
  const texts = (core.queue.items as Array<{ text: string }>).map((m) => m.text)
  assert.equal(texts[0], `look\n[image: image/jpeg, saved at ${join(dir, 'media', 'IMG1.jpeg')}]`)
  assert.equal(readFileSync(join(dir, 'media', 'IMG1.jpeg'), 'utf8'), 'bytes of IMG1')
  assert.equal(texts[1], 'look\n[image: image/jpeg, not downloaded: larger than 25 MB]')
  assert.equal(texts[2], 'look\n[image: image/jpeg, could not be downloaded]')
  assert.equal(texts[3], 'plain')
})
