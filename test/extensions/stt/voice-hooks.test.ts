// The small voice hooks: WhatsApp's saved voice notes transcribed (only inside the media folder),
// speakReply's modes and failures, and the CLI /voice without a recorder.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { speakReply, VOICE_MODES_SERVICE, TTS_SERVICE, type CommandDefinition, type Logger, type Services, type SpeakResult } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { withVoiceTranscripts } from '../../../extensions/whatsapp/voice-notes.ts'
import { OGG_HEADER, toneWav } from './audio-fixtures.ts'
import { startFakeTranscriptionApi } from './fake-stt.ts'

const KEY = 'sk-stt-hooks-key-0123456789'
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger

test('whatsapp: a saved voice note is followed by its transcript; a path outside the media folder is not read', async (t) => {
  const api = await startFakeTranscriptionApi(KEY, { text: 'see you soon' })
  t.after(() => api.close())
  const k = await createTestKernel({ builtins: ['stt'], config: { stt: { provider: 'api', api: { base_url: `${api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  t.after(() => k.close())
  const media = join(k.home, 'cache', 'whatsapp')
  mkdirSync(media, { recursive: true })
  writeFileSync(join(media, 'ABC.ogg'), OGG_HEADER)
  writeFileSync(join(k.home, 'outside.ogg'), OGG_HEADER)
  const text = `hi\n[audio: audio/ogg; codecs=opus, saved at ${join(media, 'ABC.ogg')}]\n[audio: audio/ogg, saved at ${join(media, '..', '..', 'outside.ogg')}]`
  const out = await withVoiceTranscripts(text, media, k.kernel.services, silent)
  assert.equal(out, `hi\n[audio: audio/ogg; codecs=opus, saved at ${join(media, 'ABC.ogg')}]\n[voice message, transcribed]: see you soon\n[audio: audio/ogg, saved at ${join(media, '..', '..', 'outside.ogg')}]`)
  assert.equal(api.requests.length, 1)
})

function fakeServices(mode: string, speak: () => Promise<SpeakResult>): Services {
  const values: Record<string, unknown> = { [VOICE_MODES_SERVICE]: { get: async () => mode, set: async () => {} }, [TTS_SERVICE]: { speak, checks: async () => [] } }
  return { get: (name: string) => values[name], has: (name: string) => name in values, provide() {}, require: (name: string) => values[name] } as unknown as Services
}

test('speakReply: voice_only speaks only after a voice message, all always; failures leave the text', async () => {
  const source = { platform: 'x', chatId: 'c1' }
  const sent: Array<{ chatId: string; voice: boolean; filename: string }> = []
  const adapter = { voiceBubbles: true, sendAudio: async (chatId: string, audio: { voice: boolean; filename: string }) => void sent.push({ chatId, voice: audio.voice, filename: audio.filename }) }
  const ok = async (): Promise<SpeakResult> => ({ ok: true, audio: new Uint8Array([1]), mimeType: 'audio/ogg', filename: 'speech.ogg', provider: 'edge' })
  await speakReply(fakeServices('voice_only', ok), adapter, source, 'typed question', 'answer', silent)
  assert.equal(sent.length, 0)
  await speakReply(fakeServices('voice_only', ok), adapter, source, '[voice message, transcribed]: spoken question', 'answer', silent)
  assert.deepEqual(sent, [{ chatId: 'c1', voice: true, filename: 'speech.ogg' }])
  await speakReply(fakeServices('all', ok), adapter, source, 'typed', 'answer', silent)
  assert.equal(sent.length, 2)
  await speakReply(fakeServices('off', ok), adapter, source, '[voice message, transcribed]: x', 'answer', silent)
  await speakReply(fakeServices('all', ok), {}, source, 'typed', 'answer', silent)
  assert.equal(sent.length, 2, 'off, or an adapter that cannot send audio: nothing')
  const warnings: string[] = []
  const log = { ...silent, warn: (line: string) => void warnings.push(line) } as Logger
  await speakReply(fakeServices('all', async () => ({ ok: false, message: 'service down' })), adapter, source, 'typed', 'answer', log)
  await speakReply(fakeServices('all', async () => { throw new Error('boom') }), adapter, source, 'typed', 'answer', log)
  await speakReply(fakeServices('all', ok), { sendAudio: async () => { throw new Error('upload refused') } }, source, 'typed', 'answer', log)
  assert.deepEqual(warnings.map((w) => w.replace(/^voice reply to x c1 /, '')), ['not spoken, sending text only: service down', 'failed, sending text only: boom', 'failed, sending text only: upload refused'])
})

test('CLI /voice: push-to-talk in two presses (a fake rec on PATH); without a recorder it says what to install', async (t) => {
  const k = await createTestKernel({ builtins: ['state-db', 'stt', 'tts'] })
  t.after(() => k.close())
  const bin = join(k.home, 'bin')
  mkdirSync(bin)
  const wav = join(k.home, 'spoken.wav')
  writeFileSync(wav, toneWav())
  // sox's rec: the output file is its 8th argument; SIGINT ends the recording (the trap is set first,
  // so a SIGINT during the copy runs after it).
  writeFileSync(join(bin, 'rec'), `#!/bin/sh\ntrap 'exit 0' INT\n/bin/cp '${wav}' "$8"\nwhile :; do /bin/sleep 0.05; done\n`, { mode: 0o755 })
  const recogniser = join(k.home, 'recognise.mjs')
  writeFileSync(recogniser, "console.log('spoken prompt')\n")
  const k2 = await createTestKernel({ builtins: ['state-db', 'stt', 'tts'], home: k.home, config: { stt: { provider: 'local', local: { command: `${process.execPath} ${recogniser} {file}` } } } })
  t.after(() => k2.close())
  const replies: string[] = []
  const queued: string[] = []
  const voice = (kernel: typeof k) => (kernel.kernel.registries.commands.get('voice') as CommandDefinition).slash!({ args: '', invokedAs: 'voice', surface: 'cli', reply: (text) => void replies.push(text), chat: { queue: (p: string) => void queued.push(p) } as never })
  const saved = process.env.PATH
  try {
    process.env.PATH = '/nonexistent-bin'
    await voice(k)
    assert.deepEqual(replies, ["/voice needs a recorder: install sox (apt-get install sox, brew install sox) or ALSA's arecord (apt-get install alsa-utils)."])
    process.env.PATH = bin
    await voice(k2)
    assert.match(replies[1]!, /^\/voice: recording with rec \(60 s at most\); type \/voice again to send it\.$/)
    await new Promise((resolve) => setTimeout(resolve, 200))
    await voice(k2)
  } finally {
    process.env.PATH = saved
  }
  assert.equal(replies[2], 'You said: spoken prompt')
  assert.deepEqual(queued, ['spoken prompt'])
})
