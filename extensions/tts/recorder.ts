// The CLI's `/voice`: records one prompt from the microphone with sox's `rec` (starts when you speak,
// stops after two seconds of silence, 30 s at most) or ALSA's `arecord` (10 s), transcribes it with
// the `stt` service and queues the text as the next prompt. Without a recorder it says what to install.

import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { STT_SERVICE, type Services, type SlashContext, type SpeechToText } from 'agent/sdk'

const onPath = (program: string) => (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, program)))

export function recorderCommand(file: string): { program: string; args: string[]; how: string } | undefined {
  if (onPath('rec')) return { program: 'rec', args: ['-q', '-c', '1', '-r', '16000', '-b', '16', file, 'trim', '0', '30', 'silence', '1', '0.1', '1%', '1', '2.0', '1%'], how: 'speak now; recording stops after 2 s of silence' }
  if (onPath('arecord')) return { program: 'arecord', args: ['-q', '-f', 'S16_LE', '-r', '16000', '-c', '1', '-d', '10', file], how: 'speak now; recording for 10 s' }
  return undefined
}

export async function recordPrompt(ctx: SlashContext, services: Services): Promise<void> {
  const stt = services.get<SpeechToText>(STT_SERVICE)
  if (!stt) return void (await ctx.reply('/voice: speech-to-text is not loaded (extension stt).'))
  const dir = mkdtempSync(join(tmpdir(), 'agent-voice-'))
  try {
    const file = join(dir, 'prompt.wav')
    const recorder = recorderCommand(file)
    if (!recorder) return void (await ctx.reply('/voice needs a recorder: install sox (apt-get install sox, brew install sox) or ALSA\'s arecord (apt-get install alsa-utils).'))
    await ctx.reply(`/voice: ${recorder.how}…`)
    await new Promise<void>((resolve, reject) => execFile(recorder.program, recorder.args, { timeout: 40_000 }, (error) => (error ? reject(new Error(`${recorder.program} failed: ${error.message.split('\n')[0]}`)) : resolve())))
    const result = await stt.transcribe({ data: readFileSync(file), filename: 'prompt.wav' })
    if (!result.ok) return void (await ctx.reply(`/voice: ${result.message}`))
    if (!result.text.trim()) return void (await ctx.reply('/voice: nothing was heard.'))
    await ctx.reply(`You said: ${result.text}`)
    ctx.chat?.queue(result.text)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
