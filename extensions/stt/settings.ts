// The `stt` section of config.yaml and the key: which provider, whether an explicitly chosen one may
// fall back to the other, and each provider's own settings.

import type { Settings } from 'agent/sdk'

export interface SttConfig {
  /** Unset: local, falling back to the API (and back) as the spec says. Set: that provider only, unless `fallback`. */
  provider?: 'local' | 'api'
  fallback: boolean
  local: { model: string; model_url: string; model_sha256?: string; command?: string; language: string }
  api: { base_url: string; model: string; language?: string }
}

export const DEFAULT_MODEL_URL = 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-{model}.bin'

export const STT_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    provider: { enum: ['local', 'api'] },
    fallback: { type: 'boolean', default: false },
    local: {
      type: 'object',
      properties: {
        model: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', default: 'base' },
        model_url: { type: 'string', pattern: '^https?://', default: DEFAULT_MODEL_URL },
        model_sha256: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
        command: { type: 'string', minLength: 1 },
        language: { type: 'string', pattern: '^[a-z]{2,3}$|^auto$', default: 'auto' },
      },
      additionalProperties: false,
      default: {},
    },
    api: {
      type: 'object',
      properties: {
        base_url: { type: 'string', pattern: '^https?://', default: 'https://api.openai.com/v1' },
        model: { type: 'string', minLength: 1, default: 'whisper-1' },
        language: { type: 'string', pattern: '^[a-z]{2,3}$' },
      },
      additionalProperties: false,
      default: {},
    },
  },
  additionalProperties: false,
} as const

/** The transcription API's key: `STT_API_KEY`, else `OPENAI_API_KEY`. */
export function sttApiKey(settings: Pick<Settings, 'env'>): string | undefined {
  return settings.env('STT_API_KEY')?.trim() || settings.env('OPENAI_API_KEY')?.trim() || undefined
}
