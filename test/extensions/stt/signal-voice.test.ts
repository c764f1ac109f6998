// A Signal voice note: fetched from the daemon like any attachment, then transcribed through the
// stt service (a loopback transcription API) before the agent reads it; without stt the agent is
// told it could not be transcribed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { AudioCapableAdapter } from 'agent/sdk'
import { ALICE, dm } from '../signal/fake-daemon.ts'
import { harness, until } from '../signal/harness.ts'
import { OGG_HEADER } from './audio-fixtures.ts'
import { startFakeTranscriptionApi } from './fake-stt.ts'

const KEY = 'sk-stt-signal-key-0123456789'
const voiceNote = { attachments: [{ id: 'voice1.ogg', contentType: 'audio/ogg', filename: null, size: OGG_HEADER.length }] }

test('signal: a voice note reaches the agent as its transcript', async (t) => {
  const api = await startFakeTranscriptionApi(KEY, { text: 'call me back' })
  t.after(() => api.close())
  const h = await harness(t, { builtins: ['stt'], config: { stt: { provider: 'api', api: { base_url: `${api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  await h.start()
  h.daemon.attachments.set('voice1.ogg', OGG_HEADER)
  h.daemon.push(dm(ALICE, '', voiceNote))
  await until(() => h.runs.length === 1, 10_000)
  assert.match(h.inputs()[0]!, /^\[attachment: voice1\.ogg \(audio\/ogg, 64 B\) saved at .+\]\n\[voice message, transcribed\]: call me back$/)
  assert.equal(api.requests.length, 1)
})

test('signal: without the stt extension the agent is told the voice note was not transcribed', async (t) => {
  const h = await harness(t)
  await h.start()
  h.daemon.attachments.set('voice1.ogg', OGG_HEADER)
  h.daemon.push(dm(ALICE, '', voiceNote))
  await until(() => h.runs.length === 1, 10_000)
  assert.match(h.inputs()[0]!, /\[voice message: voice1\.ogg could not be transcribed: speech-to-text is not loaded \(extension stt\)\]$/)
})

test('signal: a spoken reply is sent as an attachment (data URI) to the chat', async (t) => {
  const h = await harness(t)
  await h.start()
  await (h.adapter as typeof h.adapter & AudioCapableAdapter).sendAudio!(ALICE, { data: new Uint8Array(Buffer.from('OggS voice')), mimeType: 'audio/ogg', filename: 'speech.ogg', voice: true })
  const call = h.daemon.sends().at(-1)!
  assert.deepEqual(call.params.recipient, [ALICE])
  assert.deepEqual(call.params.attachments, [`data:audio/ogg;filename=speech.ogg;base64,${Buffer.from('OggS voice').toString('base64')}`])
})
