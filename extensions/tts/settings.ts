// The `tts` section of config.yaml: the provider (`edge`, free, the default; `elevenlabs`, paid;
// `openai`, any OpenAI-compatible /audio/speech), each provider's settings, and the spoken text cap.

import type { Settings } from 'agent/sdk'

export type TtsProvider = 'edge' | 'elevenlabs' | 'openai'

export interface TtsConfig {
  provider: TtsProvider
  /** Characters spoken at most (after markdown is stripped); the rest is cut at a sentence end. */
  max_chars: number
  edge: { endpoint: string; voice: string }
  elevenlabs: { base_url: string; voice_id: string; model_id: string }
  openai: { base_url: string; model: string; voice: string }
}

export const EDGE_ENDPOINT = 'wss://speech.platform.bing.com/consumer/speech/synthesize/readaloud/edge/v1'

export const TTS_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    provider: { enum: ['edge', 'elevenlabs', 'openai'], default: 'edge' },
    max_chars: { type: 'integer', minimum: 50, maximum: 20_000, default: 4000 },
    edge: {
      type: 'object',
      properties: {
        endpoint: { type: 'string', pattern: '^wss?://', default: EDGE_ENDPOINT },
        voice: { type: 'string', pattern: '^[A-Za-z]{2,3}-[A-Za-z0-9]{2,4}-[A-Za-z0-9]+$', default: 'en-US-AriaNeural' },
      },
      additionalProperties: false,
    },
    elevenlabs: {
      type: 'object',
      properties: {
        base_url: { type: 'string', pattern: '^https?://', default: 'https://api.elevenlabs.io' },
        voice_id: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$', default: '21m00Tcm4TlvDq8ikWAM' },
        model_id: { type: 'string', minLength: 1, default: 'eleven_multilingual_v2' },
      },
      additionalProperties: false,
    },
    openai: {
      type: 'object',
      properties: {
        base_url: { type: 'string', pattern: '^https?://', default: 'https://api.openai.com/v1' },
        model: { type: 'string', minLength: 1, default: 'gpt-4o-mini-tts' },
        voice: { type: 'string', minLength: 1, default: 'alloy' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const

/** The key each paid provider needs (edge needs none). */
export const TTS_KEYS: Record<TtsProvider, string | undefined> = { edge: undefined, elevenlabs: 'ELEVENLABS_API_KEY', openai: 'OPENAI_API_KEY' }

export function ttsKey(settings: Pick<Settings, 'env'>, provider: TtsProvider): string | undefined {
  const name = TTS_KEYS[provider]
  return name ? settings.env(name)?.trim() || undefined : undefined
}
