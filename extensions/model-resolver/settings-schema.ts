// The model settings the resolver reads at call time (`settings` of its definition): `model` (a name,
// or a mapping), `fallback_model`, `custom_providers`. What `agent config set` checks.

import type { JsonSchema } from 'agent/sdk'

const url = { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' }

export const MODEL_SETTINGS: Readonly<Record<string, JsonSchema>> = {
  model: {
    anyOf: [
      { type: 'string', description: 'the default model' },
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          default: { type: ['string', 'null'] },
          provider: { type: ['string', 'null'] },
          base_url: { ...url, type: ['string', 'null'] },
          api_key: { type: ['string', 'null'] },
          context_length: { type: 'integer', minimum: 1 },
          input_modalities: { type: 'array', items: { enum: ['text', 'image', 'audio'] }, uniqueItems: true },
        },
      },
    ],
  },
  fallback_model: { type: ['object', 'array'] },
  custom_providers: { type: ['object', 'array'] },
}
