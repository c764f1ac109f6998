// Voice notes: the bridge saves an incoming audio part under the media folder and notes it as
// `[audio: <type>, saved at <path>]`; each such line is followed by its transcript (sdk/voice.ts)
// before the agent reads the message. Only files inside the media folder are read.

import { readFile } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { transcribeAudio, type Logger, type Services } from 'agent/sdk'

const SAVED_AUDIO = /^\[audio(?::\s*([^,\]\n]+))?[^\n]*, saved at (.+)\]$/gm

export async function withVoiceTranscripts(text: string, mediaDir: string, services: Pick<Services, 'get'>, log: Logger): Promise<string> {
  const root = resolve(mediaDir) + sep
  let out = text
  for (const match of [...text.matchAll(SAVED_AUDIO)]) {
    const path = resolve(match[2]!)
    if (!path.startsWith(root)) continue
    const mimeType = match[1]?.split(';')[0]?.trim()
    const line = await transcribeAudio(services, { filename: path.slice(root.length), ...(mimeType ? { mimeType } : {}), fetch: async () => new Uint8Array(await readFile(path)) }, log)
    out = out.replace(match[0], `${match[0]}\n${line}`)
  }
  return out
}
