// WhatsApp through the real bridge core (fake socket): an incoming voice note saved by the bridge is
// handed to the stt service (the fake socket's media bytes are no audio, so the agent is told why it
// was not transcribed: the hook ran on the saved file); a spoken reply goes out as an audio message.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { AudioCapableAdapter } from 'agent/sdk'
import { ALICE, harness, until } from '../whatsapp/harness.ts'
import { startFakeTranscriptionApi } from './fake-stt.ts'

const KEY = 'sk-stt-whatsapp-key-0123456789'

test('whatsapp: a voice note reaches the stt service; sendAudio sends an audio message', async (t) => {
  const api = await startFakeTranscriptionApi(KEY)
  t.after(() => api.close())
  const h = await harness(t, { builtins: ['stt'], config: { stt: { provider: 'api', api: { base_url: `${api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  await h.start()
  await h.bridge('/test/inbound', { message: { key: { remoteJid: ALICE, id: 'VOICE1', fromMe: false }, message: { audioMessage: { mimetype: 'audio/ogg; codecs=opus', ptt: true } } } })
  await until(() => h.runs.length === 1, 10_000)
  assert.match(h.inputs()[0]!, /^\[audio: audio\/ogg; codecs=opus, saved at .+VOICE1\.\w+\]\n\[voice message: the voice message could not be transcribed: unsupported audio format \(audio\/ogg\): send ogg\/opus, mp3, m4a, wav or webm\]$/)
  assert.equal(api.requests.length, 0, 'refused before any request')
  await (h.adapter as typeof h.adapter & AudioCapableAdapter).sendAudio!(ALICE, { data: new Uint8Array(Buffer.from('ID3 spoken')), mimeType: 'audio/mpeg', filename: 'speech.mp3', voice: false })
  const sent = (await h.sent()).sent as Array<{ chatId: string; media?: string }>
  assert.deepEqual(sent.filter((s) => s.media).map((s) => [s.chatId, s.media]), [[ALICE, 'audio']])
})
