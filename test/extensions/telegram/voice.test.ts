// Voice on Telegram: a voice note is downloaded (getFile, then the file URL) and transcribed by the
// stt service before the agent reads it; without the service the agent reads why there is no
// transcript; a stranger's voice note is neither downloaded nor transcribed; replies spoken by the
// gateway go out as voice bubbles (OGG/Opus through sendVoice) or audio files, in the topic, and with
// /voice all before the text.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startFakeTranscriptionApi } from '../stt/fake-stt.ts'
import { startFakeSpeechApis } from '../tts/fake-tts.ts'
import { GROUPS, USERS, VOICE_BYTES } from './fake-telegram.ts'
import { harness } from './harness.ts'

const KEY = 'sk-transcription-key-0000'
/** The harness's OPENAI_API_KEY (the scripted model's), which the openai speech provider uses too. */
const MODEL_KEY = 'sk-scripted-model-key-000'

test('a voice note is transcribed by the stt service before the agent reads it', async (t) => {
  const api = await startFakeTranscriptionApi(KEY, { text: 'what is the weather like' })
  t.after(() => api.close())
  const h = await harness(t, { builtins: ['stt'], config: { stt: { provider: 'api', api: { base_url: `${api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  await h.start()
  const id = h.fake.message({ from: 'alice', voice: true })
  assert.deepEqual(await h.posted(USERS.alice.id), ['answer to: [voice message, transcribed]: what is the weather like'])
  assert.deepEqual(h.fake.requests.filter((r) => r.method === 'getFile' || r.method === 'file').map((r) => r.method), ['getFile', 'file'])
  assert.equal(api.requests.length, 1)
  assert.ok(api.requests[0]!.body.includes(Buffer.from(VOICE_BYTES)), 'the downloaded bytes reached the transcription API')
  assert.ok(id > 0)

  // With a caption, in a group, addressed by a mention: caption first, then the transcript.
  h.fake.message({ from: 'bob', group: 'general', voice: true, text: 'listen', mention: true })
  assert.deepEqual(await h.posted(GROUPS.general.id), ['answer to: listen\n[voice message, transcribed]: what is the weather like'])
})

test('without the stt service the agent reads why there is no transcript; strangers\' audio is not fetched', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'mallory', voice: true })
  h.fake.message({ from: 'alice', voice: true })
  const [answer] = await h.posted(USERS.alice.id)
  assert.match(answer!, /^answer to: \[voice message: voice-\d+\.ogg could not be transcribed: speech-to-text is not loaded \(extension stt\)\]$/)
  await sleep(200)
  assert.deepEqual(h.fake.posted(USERS.mallory.id), [])
  assert.equal(h.fake.requests.filter((r) => r.method === 'getFile').length, 0, 'nothing downloaded')
})

test('spoken replies go out as voice bubbles or audio files, in the topic', async (t) => {
  const h = await harness(t)
  await h.start()
  assert.equal(h.adapter.voiceBubbles, true)
  const ogg = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 1, 2, 3])
  await h.adapter.sendAudio(String(USERS.alice.id), { data: ogg, mimeType: 'audio/ogg', filename: 'reply.ogg', voice: true })
  await h.adapter.sendAudio(String(GROUPS.forum.id), { data: new Uint8Array([9, 9]), mimeType: 'audio/mpeg', filename: 'reply.mp3', voice: true }, { threadId: '42' })
  assert.deepEqual(h.fake.uploads.map((u) => [u.method, u.chatId, u.filename, u.data.length, u.threadId]), [
    ['sendVoice', String(USERS.alice.id), 'reply.ogg', ogg.length, undefined],
    ['sendAudio', String(GROUPS.forum.id), 'reply.mp3', 2, 42],
  ])
  await assert.rejects(h.adapter.sendAudio('general', { data: ogg, mimeType: 'audio/ogg', filename: 'x.ogg', voice: true }), /"general" is not a Telegram chat id/)
})

test('/voice all: each reply is spoken first, as a voice bubble, then sent as text', async (t) => {
  const speech = await startFakeSpeechApis(MODEL_KEY)
  t.after(() => speech.close())
  const h = await harness(t, { builtins: ['tts'], config: { tts: { provider: 'openai', openai: { base_url: `${speech.url}/v1` } } } })
  await h.start()
  h.fake.message({ from: 'alice', text: '/voice all' })
  await h.posted(USERS.alice.id)
  h.fake.message({ from: 'alice', text: 'say something' })
  assert.deepEqual((await h.posted(USERS.alice.id, 2))[1], 'answer to: say something')
  assert.deepEqual(h.fake.uploads.map((u) => [u.method, u.chatId, Buffer.from(u.data).toString()]), [['sendVoice', String(USERS.alice.id), 'opus-answer to: say something']])
  const order = h.fake.requests.filter((r) => r.method === 'sendVoice' || (r.method === 'sendMessage' && r.body.text?.startsWith('answer to'))).map((r) => r.method)
  assert.deepEqual(order, ['sendVoice', 'sendMessage'], 'the audio before the text')
})
