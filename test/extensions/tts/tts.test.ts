import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test, type TestContext } from 'node:test'
import { TTS_SERVICE, type TextToSpeech, type ToolDefinition } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { speakableText } from '../../../extensions/tts/service.ts'
import { AUDIO, startFakeEdge, startFakeSpeechApis } from './fake-tts.ts'

const KEY = 'tts-test-key-0123456789abcdef'

async function kernel(t: TestContext, tts: Record<string, unknown>, env: Record<string, string> = {}, home?: string) {
  const k = await createTestKernel({ builtins: ['state-db', 'tts'], config: { tts }, env, ...(home ? { home } : {}) })
  t.after(() => k.close())
  return { k, tts: k.kernel.services.get<TextToSpeech>(TTS_SERVICE)! }
}

test('edge: config, SSML and audio frames over the websocket protocol; markdown is not spoken', async (t) => {
  const edge = await startFakeEdge()
  t.after(() => edge.close())
  const { tts } = await kernel(t, { edge: { endpoint: edge.url, voice: 'en-GB-SoniaNeural' } })
  const result = await tts.speak('# Hi\n**Bold** <tag> & `code` see https://example.com/x', { format: 'ogg_opus' })
  assert.deepEqual(result, { ok: true, audio: Buffer.concat(AUDIO), mimeType: 'audio/ogg', filename: 'speech.ogg', provider: 'edge' })
  const [connection] = edge.connections
  assert.equal(connection!.query.get('TrustedClientToken'), '6A5AA1D4EAFF4E9FB37E23D68491D6F4')
  assert.match(connection!.query.get('Sec-MS-GEC')!, /^[0-9A-F]{64}$/)
  const [config, ssml] = connection!.frames
  assert.match(config!, /Path:speech\.config\r\n\r\n.*"outputFormat":"ogg-24khz-16bit-mono-opus"/)
  assert.equal(/X-RequestId:(\w+)/.exec(ssml!)![1], connection!.query.get('ConnectionId'))
  assert.match(ssml!, /xml:lang='en-GB'><voice name='en-GB-SoniaNeural'><prosody [^>]*>Hi Bold &lt;tag&gt; &amp; code see a link<\/prosody>/)
  const mp3 = await tts.speak('plain', { format: 'mp3' })
  assert.equal(mp3.ok && mp3.mimeType, 'audio/mpeg')
  assert.match(edge.connections[1]!.frames[0]!, /audio-24khz-48kbitrate-mono-mp3/)
})

test('edge: a dropped connection or a refused upgrade is { ok: false } with a reason, never a throw', async (t) => {
  for (const [behaviour, reason] of [['close-early', /closed the connection before the end of the audio/], ['refuse', /refused the connection: HTTP 403/]] as const) {
    const edge = await startFakeEdge(behaviour)
    t.after(() => edge.close())
    const { tts } = await kernel(t, { edge: { endpoint: edge.url } })
    const result = await tts.speak('hello')
    assert.equal(result.ok, false)
    assert.match((result as { message: string }).message, reason)
  }
})

test('elevenlabs: xi-api-key, voice in the path, text and model in the body; errors keep the key out', async (t) => {
  const api = await startFakeSpeechApis(KEY)
  t.after(() => api.close())
  const { tts } = await kernel(t, { provider: 'elevenlabs', elevenlabs: { base_url: api.url, voice_id: 'voice123' } }, { ELEVENLABS_API_KEY: KEY })
  const result = await tts.speak('_hello_ there', { format: 'ogg_opus' })
  assert.deepEqual(result, { ok: true, audio: new Uint8Array(Buffer.from('ID3-eleven-hello there')), mimeType: 'audio/mpeg', filename: 'speech.mp3', provider: 'elevenlabs' })
  assert.equal(api.requests[0]!.path, '/v1/text-to-speech/voice123?output_format=mp3_44100_128')
  assert.deepEqual(api.requests[0]!.body, { text: 'hello there', model_id: 'eleven_multilingual_v2' })
  const bad = await kernel(t, { provider: 'elevenlabs', elevenlabs: { base_url: api.url } }, { ELEVENLABS_API_KEY: 'wrong-key-0123456789' })
  const refused = await bad.tts.speak('hello')
  assert.deepEqual(refused, { ok: false, message: 'ElevenLabs answered HTTP 401: Invalid API key' })
  const none = await kernel(t, { provider: 'elevenlabs' })
  assert.deepEqual(await none.tts.speak('hello'), { ok: false, message: 'ELEVENLABS_API_KEY is not set (tts.provider: elevenlabs)' })
})

test('openai: /audio/speech with opus for voice bubbles, mp3 otherwise, at tts.openai.base_url', async (t) => {
  const api = await startFakeSpeechApis(KEY)
  t.after(() => api.close())
  const { tts } = await kernel(t, { provider: 'openai', openai: { base_url: `${api.url}/v1`, voice: 'nova' } }, { OPENAI_API_KEY: KEY })
  const ogg = await tts.speak('hi', { format: 'ogg_opus' })
  assert.deepEqual(ogg, { ok: true, audio: new Uint8Array(Buffer.from('opus-hi')), mimeType: 'audio/ogg', filename: 'speech.ogg', provider: 'openai' })
  assert.deepEqual(api.requests[0]!.body, { model: 'gpt-4o-mini-tts', voice: 'nova', input: 'hi', response_format: 'opus' })
  assert.equal(api.requests[0]!.headers.authorization, `Bearer ${KEY}`)
  assert.equal((await tts.speak('hi')).ok && 'mp3', 'mp3')
})

test('speakable text: markdown stripped, capped at a sentence end (or a word) within max_chars', () => {
  assert.equal(speakableText('## Title\n- item with `code`\n\n```js\nx()\n```', 100), 'Title - item with code x()')
  const long = 'First sentence here. Second sentence is longer than that. Third.'
  assert.equal(speakableText(long, 60), 'First sentence here. Second sentence is longer than that.')
  assert.equal(speakableText(long, 50), 'First sentence here. Second sentence is longer…')
  assert.equal(speakableText('word '.repeat(40), 52), `${'word '.repeat(10).trim()}…`)
  assert.equal(speakableText('**  **', 100), '')
})

test('text_to_speech tool: saves the audio under the agent home; declares tts.provider for agent tools', async (t) => {
  const edge = await startFakeEdge()
  t.after(() => edge.close())
  const { k } = await kernel(t, { edge: { endpoint: edge.url } })
  const tool = k.kernel.registries.tools.get('text_to_speech') as ToolDefinition & { backends: { setting: string } }
  assert.equal(tool.backends.setting, 'tts.provider')
  const out = (await tool.execute({ input: { text: 'hello' }, callId: 'c1', signal: new AbortController().signal, session: { id: 's', cwd: k.home } })) as { file: string; sentToChat: boolean; provider: string }
  assert.ok(out.file.startsWith(`${k.home}/audio/speech-`) && out.file.endsWith('.mp3'))
  assert.deepEqual(readFileSync(out.file), Buffer.concat(AUDIO))
  assert.equal(out.sentToChat, false)
  assert.equal(tool.available!(k.kernel.settings), true)
  const paid = await kernel(t, { provider: 'openai' })
  assert.equal((paid.k.kernel.registries.tools.get('text_to_speech') as ToolDefinition).available!(paid.k.kernel.settings), 'OPENAI_API_KEY is not set (tts.provider: openai)')
})

