// The CLI's `/voice`, push-to-talk as two presses: the first `/voice` starts recording from the
// microphone with sox's `rec` or ALSA's `arecord` (60 s at most), the second stops it, transcribes
// the recording with the `stt` service and sends the text as the next prompt. Without a recorder it
// says what to install.

import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { STT_SERVICE, type Services, type SlashContext, type SpeechToText } from 'agent/sdk'

const MAX_SECONDS = 60
const STOP_WAIT_MS = 5000

const onPath = (program: string) => (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, program)))

export function recorderCommand(file: string): { program: string; args: string[] } | undefined {
  if (onPath('rec')) return { program: 'rec', args: ['-q', '-c', '1', '-r', '16000', '-b', '16', file, 'trim', '0', String(MAX_SECONDS)] }
  if (onPath('arecord')) return { program: 'arecord', args: ['-q', '-f', 'S16_LE', '-r', '16000', '-c', '1', '-d', String(MAX_SECONDS), file] }
  return undefined
}

interface Recording {
  child: ChildProcess
  dir: string
  file: string
  exited: Promise<void>
}

let recording: Recording | undefined

export async function recordPrompt(ctx: SlashContext, services: Services): Promise<void> {
  const stt = services.get<SpeechToText>(STT_SERVICE)
  if (!stt) return void (await ctx.reply('/voice: speech-to-text is not loaded (extension stt).'))
  if (!recording) return start(ctx)
  const { child, dir, file, exited } = recording
  recording = undefined
  try {
    // SIGINT lets sox and arecord finish the WAV header.
    child.kill('SIGINT')
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())])
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    if (!existsSync(file) || statSync(file).size <= 44) return void (await ctx.reply('/voice: nothing was recorded.'))
    const result = await stt.transcribe({ data: readFileSync(file), filename: 'prompt.wav' })
    if (!result.ok) return void (await ctx.reply(`/voice: ${result.message}`))
    if (!result.text.trim()) return void (await ctx.reply('/voice: nothing was heard.'))
    await ctx.reply(`You said: ${result.text}`)
    ctx.chat?.queue(result.text)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function start(ctx: SlashContext): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-voice-'))
  const file = join(dir, 'prompt.wav')
  const recorder = recorderCommand(file)
  if (!recorder) {
    rmSync(dir, { recursive: true, force: true })
    return void (await ctx.reply("/voice needs a recorder: install sox (apt-get install sox, brew install sox) or ALSA's arecord (apt-get install alsa-utils)."))
  }
  const child = spawn(recorder.program, recorder.args, { stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  child.once('error', () => undefined)
  // Leaving the chat while recording stops the recorder too.
  const stop = () => child.kill('SIGKILL')
  process.once('exit', stop)
  void exited.then(() => process.removeListener('exit', stop))
  recording = { child, dir, file, exited }
  await ctx.reply(`/voice: recording with ${recorder.program} (${MAX_SECONDS} s at most); type /voice again to send it.`)
}
