// The `api` provider: any OpenAI-compatible `POST /audio/transcriptions` (`stt.api.base_url`),
// through the official openai client, with the audio sent as it came (the APIs read every accepted
// format themselves).

import { errorMessage, openAIClientOptions } from 'agent/sdk'
import type { AudioFormat } from './audio.ts'
import type { SttConfig } from './settings.ts'

export async function transcribeWithApi(config: SttConfig['api'], apiKey: string, data: Uint8Array, format: AudioFormat, signal?: AbortSignal): Promise<string> {
  const { default: OpenAI, toFile } = await import('openai')
  const client = new OpenAI(openAIClientOptions({ apiKey, baseUrl: config.base_url, timeoutMs: 60_000 }) as ConstructorParameters<typeof OpenAI>[0])
  try {
    const file = await toFile(data, `audio.${format}`)
    const result = await client.audio.transcriptions.create({ file, model: config.model, ...(config.language ? { language: config.language } : {}), response_format: 'json' }, signal ? { signal } : {})
    return typeof result === 'string' ? result : result.text
  } catch (error) {
    // The client's messages name the status and the server's own words, never the key.
    throw new Error(`the transcription API at ${new URL(config.base_url).origin} failed: ${errorMessage(error).split('\n')[0]}`)
  }
}
