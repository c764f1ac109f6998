// Real speech, where the machine has the tools: Debian's espeak-ng speaks a sentence to a WAV file and
// pocketsphinx (as `stt.local.command`; the whisper model cannot be downloaded in a hermetic test)
// transcribes it through the stt service; the same speech as an OGG/Opus voice note (opusenc, what
// messengers send) is decoded in process first. Fuzzy: a small recogniser mishears some words.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { STT_SERVICE, type SpeechToText } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'

function installed(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const missing = ['espeak-ng', 'pocketsphinx_continuous'].filter((p) => !installed(p))

async function transcribeSpoken(t: import('node:test').TestContext, voiceNote: boolean): Promise<string> {
  const k = await createTestKernel({ builtins: ['stt'], config: { stt: { provider: 'local', local: { command: 'pocketsphinx_continuous -infile {file} -logfn /dev/null' } } } })
  t.after(() => k.close())
  const wav = join(k.home, 'spoken.wav')
  // Counting: the words a small recogniser hears best from a synthetic voice.
  execFileSync('espeak-ng', ['-v', 'en-us', '-w', wav, 'one two three four five six seven'], { timeout: 30_000 })
  const file = voiceNote ? join(k.home, 'voice-note.ogg') : wav
  if (voiceNote) execFileSync('opusenc', ['--quiet', wav, file], { timeout: 30_000 })
  const result = await k.kernel.services.get<SpeechToText>(STT_SERVICE)!.transcribe({ data: readFileSync(file), filename: file })
  assert.equal(result.ok, true, JSON.stringify(result))
  return (result as { text: string }).text
}

function assertCounting(text: string): void {
  const words = new Set(text.toLowerCase().split(/\W+/))
  const heard = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'].filter((w) => words.has(w))
  assert.ok(heard.length >= 3, `heard ${JSON.stringify(text)}`)
}

test('espeak-ng speaks, pocketsphinx transcribes through the stt service', { skip: missing.length ? `not installed: ${missing.join(', ')} (apt-get install espeak-ng pocketsphinx pocketsphinx-en-us)` : false }, async (t) => {
  assertCounting(await transcribeSpoken(t, false))
})

test('the same speech as an OGG/Opus voice note is decoded in process and transcribed', { skip: missing.length || !installed('opusenc') ? 'needs espeak-ng, pocketsphinx and opusenc (apt-get install opus-tools)' : false }, async (t) => {
  assertCounting(await transcribeSpoken(t, true))
})
