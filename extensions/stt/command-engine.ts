// The `stt.local.command` engine: any program that transcribes a WAV file and prints the text
// (Debian's `pocketsphinx_continuous -infile {file} -logfn /dev/null`, a whisper.cpp build …). The
// audio is decoded to 16 kHz mono 16-bit WAV in a private temporary folder; `{file}` in the command
// is replaced by its path (else the path is appended). Run without a shell, bounded in time and output.

import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeWav } from './audio.ts'

const TIMEOUT_MS = 120_000

/** Splits a command line into words: whitespace separates, single and double quotes group. */
export function commandWords(command: string): string[] {
  const words: string[] = []
  for (const match of command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!)
  return words
}

export async function transcribeWithCommand(command: string, samples: Float32Array, signal?: AbortSignal): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-stt-'))
  try {
    const file = join(dir, 'audio.wav')
    writeFileSync(file, encodeWav(samples))
    const words = commandWords(command)
    const args = words.slice(1).map((w) => w.replaceAll('{file}', file))
    if (!words.some((w) => w.includes('{file}'))) args.push(file)
    return await new Promise<string>((resolve, reject) => {
      execFile(words[0]!, args, { timeout: TIMEOUT_MS, maxBuffer: 1024 * 1024, ...(signal ? { signal } : {}) }, (error, stdout, stderr) => {
        if (error) {
          const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (String(stderr).trim().split('\n').pop() || error.message.split('\n')[0])
          return reject(new Error(`stt.local.command (${words[0]}) failed: ${why}`))
        }
        resolve(String(stdout).replace(/\s+/g, ' ').trim())
      })
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
