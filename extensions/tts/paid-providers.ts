// The two keyed providers. ElevenLabs: `POST <base_url>/v1/text-to-speech/<voice_id>` with the
// `xi-api-key` header, MP3 back (its Opus output is not a voice-bubble container on every platform).
// OpenAI-compatible: `POST <base_url>/audio/speech` through the official client, `opus` (Ogg) for
// voice bubbles, else `mp3`.

import { errorMessage, openAIClientOptions, type SpeechFormat } from 'agent/sdk'
import type { TtsConfig } from './settings.ts'

export interface Spoken {
  audio: Uint8Array
  mimeType: string
  filename: string
}

const TIMEOUT_MS = 60_000

export async function elevenLabsSpeak(config: TtsConfig['elevenlabs'], key: string, text: string, signal?: AbortSignal): Promise<Spoken> {
  const url = new URL(`${config.base_url.replace(/\/+$/, '')}/v1/text-to-speech/${encodeURIComponent(config.voice_id)}`)
  url.searchParams.set('output_format', 'mp3_44100_128')
  const timeout = AbortSignal.timeout(TIMEOUT_MS)
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'xi-api-key': key, 'content-type': 'application/json', accept: 'audio/mpeg' },
    body: JSON.stringify({ text, model_id: config.model_id }),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  }).catch((error: unknown) => {
    throw new Error(`ElevenLabs at ${url.origin} is unreachable: ${errorMessage(error)}`)
  })
  if (!response.ok) {
    const body = await response.text().catch(() => '')
    let detail = body.slice(0, 200)
    try {
      const parsed = JSON.parse(body)
      detail = parsed?.detail?.message ?? parsed?.detail?.status ?? (typeof parsed?.detail === 'string' ? parsed.detail : detail)
    } catch {
      // not JSON: the text itself
    }
    throw new Error(`ElevenLabs answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`)
  }
  return { audio: new Uint8Array(await response.arrayBuffer()), mimeType: 'audio/mpeg', filename: 'speech.mp3' }
}

export async function openAiSpeak(config: TtsConfig['openai'], key: string, text: string, format: SpeechFormat, signal?: AbortSignal): Promise<Spoken> {
  const { default: OpenAI } = await import('openai')
  const client = new OpenAI(openAIClientOptions({ apiKey: key, baseUrl: config.base_url, timeoutMs: TIMEOUT_MS }) as ConstructorParameters<typeof OpenAI>[0])
  try {
    const response = await client.audio.speech.create({ model: config.model, voice: config.voice, input: text, response_format: format === 'ogg_opus' ? 'opus' : 'mp3' }, signal ? { signal } : {})
    const audio = new Uint8Array(await response.arrayBuffer())
    return format === 'ogg_opus' ? { audio, mimeType: 'audio/ogg', filename: 'speech.ogg' } : { audio, mimeType: 'audio/mpeg', filename: 'speech.mp3' }
  } catch (error) {
    throw new Error(`the speech API at ${new URL(config.base_url).origin} failed: ${errorMessage(error).split('\n')[0]}`)
  }
}
