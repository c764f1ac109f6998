// Slack audio files and clips: downloaded from url_private with the bot token (from Slack's file host
// or the API's own origin only) and transcribed before the agent reads them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { dmChannel } from '../slack/fake-slack.ts'
import { harness } from '../slack/harness.ts'
import { OGG_HEADER } from './audio-fixtures.ts'
import { startFakeTranscriptionApi } from './fake-stt.ts'

const KEY = 'sk-stt-slack-key-0123456789'

test('slack: an audio clip reaches the agent as its transcript', async (t) => {
  const api = await startFakeTranscriptionApi(KEY, { text: 'ship it on friday' })
  t.after(() => api.close())
  const h = await harness(t, { builtins: ['stt'], config: { stt: { provider: 'api', api: { base_url: `${api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  await h.start()
  h.fake.message({ from: 'alice', text: '', files: [{ name: 'audio_message.webm', mimetype: 'audio/webm', size: OGG_HEADER.length, served: OGG_HEADER }] })
  await h.posted(dmChannel('alice'))
  assert.match(h.prompts()[0]!, /^\[attachment: audio_message\.webm \(audio\/webm, 64 B\) http:\/\/127\.0\.0\.1:\d+\/files-pri\/\w+\/audio_message\.webm\]\n\[voice message, transcribed\]: ship it on friday$/)
  assert.deepEqual(h.fake.downloads, ['audio_message.webm'])
  assert.equal(api.requests.length, 1)
})
