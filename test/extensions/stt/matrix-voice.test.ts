// Matrix voice messages (m.audio): downloaded from the homeserver's authenticated media API and
// transcribed (loopback transcription API) before the agent reads them; a stranger's audio is never
// downloaded; in a group room a voice message needs to reply to the bot (it cannot mention it).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { AudioCapableAdapter } from 'agent/sdk'
import { setTimeout as sleep } from 'node:timers/promises'
import { ALICE, BOB, harness, MALLORY, until } from '../matrix/harness.ts'
import { OGG_HEADER } from './audio-fixtures.ts'
import { startFakeTranscriptionApi } from './fake-stt.ts'

const KEY = 'sk-stt-matrix-key-0123456789'
const audio = (mxc: string) => ({ msgtype: 'm.audio', body: 'Voice message.ogg', url: mxc, info: { mimetype: 'audio/ogg', size: OGG_HEADER.length }, 'org.matrix.msc3245.voice': {} })

test('matrix: a voice message reaches the agent as its transcript; strangers and group chatter do not', async (t) => {
  const api = await startFakeTranscriptionApi(KEY, { text: 'remind me at noon' })
  t.after(() => api.close())
  const h = await harness(t, { builtins: ['stt'], config: { stt: { provider: 'api', api: { base_url: `${api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  h.hs.media.set('mxc://fake.test/voice1', OGG_HEADER)
  const dm = h.hs.createRoom({ members: [{ id: ALICE, name: 'Alice' }] })
  const group = h.hs.createRoom({ members: [ALICE, BOB, MALLORY], name: 'Team' })
  const strangerDm = h.hs.createRoom({ members: [{ id: MALLORY, name: 'Mallory' }] })
  await h.start()
  const downloads = () => h.hs.requests.filter((r) => r.path.startsWith('/_matrix/client/v1/media/download/')).length

  h.hs.message(dm, ALICE, audio('mxc://fake.test/voice1'))
  await until(() => h.runs.length === 1, 10_000, () => `a run; lines: ${h.lines.join('\n')}`)
  assert.deepEqual(h.inputs(), ['[voice message, transcribed]: remind me at noon'])
  assert.equal(downloads(), 1)

  h.hs.message(group, BOB, audio('mxc://fake.test/voice1'))
  h.hs.message(strangerDm, MALLORY, audio('mxc://fake.test/voice1'))
  h.hs.message(dm, ALICE, audio('mxc://fake.test/missing'))
  await until(() => h.runs.length === 2, 10_000, () => `a second run; lines: ${h.lines.join('\n')}`)
  await sleep(300)
  assert.equal(h.inputs()[1], '[voice message: Voice message.ogg could not be downloaded]')
  assert.equal(downloads(), 2, 'the stranger\'s audio and the group chatter were never downloaded')
  assert.equal(api.requests.length, 1)
})

test('matrix: a spoken reply is uploaded to the media repository and sent as m.audio', async (t) => {
  const h = await harness(t)
  const dm = h.hs.createRoom({ members: [{ id: ALICE, name: 'Alice' }] })
  await h.start()
  await (h.adapter as typeof h.adapter & AudioCapableAdapter).sendAudio!(dm, { data: new Uint8Array(Buffer.from('ID3 spoken')), mimeType: 'audio/mpeg', filename: 'speech.mp3', voice: false })
  const [event] = h.hs.sentTo(dm)
  assert.equal(event!.content.msgtype, 'm.audio')
  assert.deepEqual(event!.content.info, { mimetype: 'audio/mpeg', size: 10 })
  assert.equal(h.hs.media.get(event!.content.url)?.toString(), 'ID3 spoken')
})
