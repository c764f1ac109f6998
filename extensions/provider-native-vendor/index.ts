// The native vendor provider: its own messages API (not OpenAI-compatible), with an API key, a
// long-lived setup token, or local OAuth credentials detected on disk (refreshed when expired).

import { defineExtension, maxAnswerBytes, type InputModality, type ModelClient, type ProviderOptions, type RetryPolicy } from 'agent/sdk'
import { Credentials } from './credentials.ts'

interface NativeVendorConfig {
  /** Local OAuth credentials file; default $CLAUDE_CONFIG_DIR or ~/.claude, `.credentials.json`. */
  credentials_path?: string
  oauth_token_url: string
  default_model: string
}

export default defineExtension<NativeVendorConfig>({
  name: 'provider-native-vendor',
  version: '1.0.0',
  description: 'Native vendor messages API (API key, setup token or local OAuth credentials)',
  config: {
    type: 'object',
    properties: {
      credentials_path: { type: 'string' },
      oauth_token_url: { type: 'string', default: 'https://console.anthropic.com/v1/oauth/token' },
      default_model: { type: 'string', default: 'claude-sonnet-4-5' },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config
    api.providers.register({
      specificationVersion: 1,
      name: 'anthropic',
      aliases: ['claude', 'claude-code', 'native', 'native-vendor'],
      label: 'Anthropic (native messages API)',
      envKeys: ['ANTHROPIC_API_KEY', 'ANTHROPIC_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_BASE_URL'],
      async create(options: ProviderOptions): Promise<ModelClient> {
        const { MessagesClient } = await import('./client.ts')
        const credentials = new Credentials({ settings: options.settings, explicitKey: options.apiKey, credentialsPath: config.credentials_path, tokenUrl: config.oauth_token_url, timeoutMs: options.timeoutMs })
        await credentials.get() // fails now, in one line, when nothing is configured
        const baseUrl = (options.baseUrl ?? options.settings.env('ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com').replace(/\/+$/, '').replace(/\/v1$/, '')
        const extra = options.extra ?? {}
        return new MessagesClient({
          model: options.model ?? config.default_model,
          baseUrl,
          timeoutMs: options.timeoutMs,
          credentials,
          retry: extra.retry as RetryPolicy | undefined,
          contextLength: typeof extra.contextLength === 'number' ? extra.contextLength : undefined,
          inputModalities: extra.inputModalities as InputModality[] | undefined,
          maxAnswerBytes: maxAnswerBytes(options.settings),
        })
      },
      configured: (settings) => Credentials.present(settings, config.credentials_path),
    })
  },
})

