// The config.yaml sections the runtime reads at call time (`settings` of its definition): what
// `agent config set` accepts and what `config show` fills in. Readers check again where they read.
// `x-env` names the environment variable that wins over a key (config show says so); `x-aliases`
// names other tools use for it (the did-you-mean of an unknown key).

import { REASONING_EFFORTS, type JsonSchema } from 'agent/sdk'

const positive = (def: number, description: string): JsonSchema => ({ type: 'integer', minimum: 1, default: def, description })

export const RUNTIME_SETTINGS: Readonly<Record<string, JsonSchema>> = {
  agent: {
    type: 'object',
    additionalProperties: false,
    properties: {
      system_prompt: { type: ['string', 'null'], description: 'replaces the built-in system prompt' },
      max_iterations: { ...positive(90, 'tool-loop iteration cap'), 'x-env': 'AGENT_MAX_ITERATIONS', 'x-aliases': ['max_turns'] },
      reasoning_effort: { enum: [...REASONING_EFFORTS, null] },
      personality: { type: ['string', 'null'], description: 'a name from personalities' },
      tool_result_max_chars: positive(50_000, 'longer tool results are cut'),
      tool_abort_grace_ms: positive(3_000, 'how long an aborted tool may take to stop'),
    },
  },
  // Config-only (never from the environment).
  compression: {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean', default: true },
      threshold: { type: 'number', minimum: 0.1, maximum: 0.95, default: 0.8 },
      keep_recent: positive(6, 'recent messages kept verbatim'),
      summary_provider: { type: 'string', minLength: 1 },
      summary_model: { type: 'string', minLength: 1 },
      summary_base_url: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' },
      summary_api_key: { type: 'string', minLength: 1 },
      summary_max_tokens: positive(2000, 'upper bound of a summary'),
    },
  },
  personalities: {
    type: 'object',
    additionalProperties: {
      anyOf: [
        { type: 'string' },
        { type: 'object', properties: { prompt: { type: 'string' }, system_prompt: { type: 'string' }, description: { type: 'string' } } },
      ],
    },
  },
  // USD per million tokens by model name.
  pricing: {
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: false, properties: { input: { type: 'number', minimum: 0 }, output: { type: 'number', minimum: 0 } } },
  },
}
