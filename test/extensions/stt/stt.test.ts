import assert from 'node:assert/strict'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { STT_SERVICE, type SpeechToText } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { M4A_HEADER, MP3_HEADER, OGG_HEADER, toneWav, WEBM_HEADER } from './audio-fixtures.ts'
import { startFakeModelHost, startFakeTranscriptionApi } from './fake-stt.ts'

const KEY = 'sk-stt-test-key-0123456789'

/** A recogniser for `stt.local.command`: prints what it heard and the WAV it was given. */
function fakeRecogniser(home: string): string {
  const script = join(home, 'recognise.mjs')
  writeFileSync(script, "import { readFileSync } from 'node:fs'\nconst wav = readFileSync(process.argv[2])\nconsole.log('local words', wav.toString('latin1', 8, 12), wav.readUInt32LE(24))\n")
  return `node ${script} {file}`
}

async function stt(t: TestContext, stt: Record<string, unknown>, options: { key?: boolean; api?: { failWith?: number } } = {}) {
  const api = await startFakeTranscriptionApi(KEY, options.api)
  t.after(() => api.close())
  const k = await createTestKernel({ builtins: ['stt'], config: { stt: { ...stt, api: { base_url: `${api.url}/v1`, ...(stt.api as object) } } }, env: options.key === false ? {} : { STT_API_KEY: KEY } })
  t.after(() => k.close())
  const service = k.kernel.services.get<SpeechToText>(STT_SERVICE)!
  return { api, k, service, recogniser: fakeRecogniser(k.home) }
}

test('formats: ogg, mp3, m4a, wav and webm are accepted; empty, unknown and over 25 MB are refused', async (t) => {
  const { service, api } = await stt(t, { provider: 'api' })
  for (const data of [OGG_HEADER, MP3_HEADER, M4A_HEADER, WEBM_HEADER, toneWav()]) {
    const result = await service.transcribe({ data })
    assert.deepEqual(result, { ok: true, text: 'hello from the api', provider: 'api' })
  }
  assert.deepEqual(api.requests.map((r) => /filename="(audio\.\w+)"/.exec(r.body.toString('latin1'))?.[1]), ['audio.ogg', 'audio.mp3', 'audio.m4a', 'audio.webm', 'audio.wav'])
  const refused = async (data: Buffer, mimeType?: string) => {
    const result = await service.transcribe({ data, ...(mimeType ? { mimeType } : {}) })
    assert.equal(result.ok, false)
    return (result as { message: string }).message
  }
  assert.match(await refused(Buffer.alloc(0)), /empty/)
  assert.match(await refused(Buffer.from('%PDF-1.7 not audio at all'), 'audio/ogg'), /unsupported audio format \(audio\/ogg\): send ogg\/opus, mp3, m4a, wav or webm/)
  assert.match(await refused(Buffer.concat([OGG_HEADER, Buffer.alloc(25 * 1024 * 1024)])), /at most 25 MB/)
  assert.equal(api.requests.length, 5, 'nothing refused reached the API')
})

test('api: the key goes in the Authorization header, the model and file in the multipart body', async (t) => {
  const { service, api } = await stt(t, { provider: 'api' })
  assert.equal((await service.transcribe({ data: OGG_HEADER, mimeType: 'audio/ogg' })).ok, true)
  assert.equal(api.requests[0]!.headers.authorization, `Bearer ${KEY}`)
  assert.equal(api.requests[0]!.path, '/v1/audio/transcriptions')
})

test('matrix: local usable → local; the API is not called', async (t) => {
  const s = await stt(t, {})
  const k2 = await createTestKernel({ builtins: ['stt'], home: s.k.home, config: { stt: { local: { command: s.recogniser }, api: { base_url: `${s.api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  t.after(() => k2.close())
  const result = await k2.kernel.services.get<SpeechToText>(STT_SERVICE)!.transcribe({ data: toneWav() })
  assert.deepEqual(result, { ok: true, text: 'local words WAVE 16000', provider: 'local' })
  assert.equal(s.api.requests.length, 0)
})

test('matrix: local missing and a key → the API (provider unset)', async (t) => {
  const { service, api } = await stt(t, { local: { command: 'no-such-recogniser-8d1f {file}' } })
  assert.deepEqual(await service.transcribe({ data: toneWav() }), { ok: true, text: 'hello from the api', provider: 'api' })
  assert.equal(api.requests.length, 1)
})

test('matrix: API missing (no key) and local usable → local, with stt.fallback: true', async (t) => {
  const s = await stt(t, {}, { key: false })
  const k2 = await createTestKernel({ builtins: ['stt'], home: s.k.home, config: { stt: { provider: 'api', fallback: true, local: { command: s.recogniser } } } })
  t.after(() => k2.close())
  const result = await k2.kernel.services.get<SpeechToText>(STT_SERVICE)!.transcribe({ data: toneWav() })
  assert.deepEqual(result, { ok: true, text: 'local words WAVE 16000', provider: 'local' })
})

test('matrix: neither usable → one friendly sentence saying what to configure', async (t) => {
  const { service, api } = await stt(t, { local: { command: 'no-such-recogniser-8d1f' } }, { key: false })
  const result = await service.transcribe({ data: toneWav() })
  assert.equal(result.ok, false)
  assert.match((result as { message: string }).message, /cannot be transcribed here .*STT_API_KEY \(or OPENAI_API_KEY\)/)
  assert.doesNotMatch((result as { message: string }).message, /\n|at .*\.ts:/)
  assert.equal(api.requests.length, 0)
})

test('matrix: an explicit provider never falls back without stt.fallback (audio stays put)', async (t) => {
  // Explicit local, its program missing, a working API: the audio must not go to the API.
  const local = await stt(t, { provider: 'local', local: { command: 'no-such-recogniser-8d1f' } })
  const refused = await local.service.transcribe({ data: toneWav() })
  assert.equal(refused.ok, false)
  assert.match((refused as { message: string }).message, /stt\.provider is local and .*not installed \(set stt\.fallback: true to allow the api provider\)/)
  assert.equal(local.api.requests.length, 0)
  // Explicit api, the API failing, a working local command: not run.
  const api = await stt(t, { provider: 'api' }, { api: { failWith: 500 } })
  const k2 = await createTestKernel({ builtins: ['stt'], home: api.k.home, config: { stt: { provider: 'api', local: { command: `${api.recogniser}` }, api: { base_url: `${api.api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  t.after(() => k2.close())
  const failed = await k2.kernel.services.get<SpeechToText>(STT_SERVICE)!.transcribe({ data: toneWav() })
  assert.equal(failed.ok, false)
  assert.match((failed as { message: string }).message, /stt\.provider is api and the transcription API at http:\/\/127\.0\.0\.1:\d+ failed: 500/)
  assert.doesNotMatch((failed as { message: string }).message, new RegExp(KEY))
  // The look-alike: the same setup with stt.fallback: true does reach local.
  const k3 = await createTestKernel({ builtins: ['stt'], home: api.k.home, config: { stt: { provider: 'api', fallback: true, local: { command: api.recogniser }, api: { base_url: `${api.api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  t.after(() => k3.close())
  assert.equal((await k3.kernel.services.get<SpeechToText>(STT_SERVICE)!.transcribe({ data: toneWav() })).ok, true)
})

test('doctor checks name the provider, the fallback and what is missing', async (t) => {
  const { service } = await stt(t, { provider: 'local', local: { command: 'no-such-recogniser-8d1f' } }, { key: false })
  const checks = await service.checks()
  assert.deepEqual(checks.map((c) => [c.name, c.level]), [['stt.provider', 'info'], ['stt local', 'warn'], ['stt api', 'info'], ['speech-to-text', 'warn']])
  assert.match(checks[0]!.detail, /no fallback/)
})


test('matrix: whisper.cpp whose model cannot be obtained (404), or is corrupt → the API', async (t) => {
  const host = await startFakeModelHost(Buffer.from('not a model'))
  t.after(() => host.close())
  const { service, api, k } = await stt(t, { local: { model: 'missing', model_url: `${host.url}/models/ggml-{model}.bin` } })
  assert.deepEqual(await service.transcribe({ data: toneWav() }), { ok: true, text: 'hello from the api', provider: 'api' })
  assert.equal(host.requests.length, 1)
  assert.equal(existsSync(join(k.home, 'models', 'ggml-missing.bin')), false)
  // A corrupt model (its checksum matches what the host says) fails in the engine's
  // worker thread, not in the process.
  const k2 = await createTestKernel({ builtins: ['stt'], home: k.home, config: { stt: { local: { model: 'tiny', model_url: `${host.url}/models/ggml-{model}.bin` }, api: { base_url: `${api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  t.after(() => k2.close())
  assert.deepEqual(await k2.kernel.services.get<SpeechToText>(STT_SERVICE)!.transcribe({ data: toneWav() }), { ok: true, text: 'hello from the api', provider: 'api' })
  assert.equal(api.requests.length, 2)
})
