// The code-assistant provider: `copilot` (GitHub token from the environment, `agent login copilot`
// device-code login, or the vendor CLI; responses API for the newest model generation, chat
// completions for the others) and `copilot-acp` (a configurable ACP agent subprocess).

import { existsSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import { AgentError, defineExtension, maxAnswerBytes, type CliContext, type InputModality, type ModelClient, type ProviderOptions, type RetryPolicy, type Settings } from 'agent/sdk'
import { LOGIN_HINT, resolveToken, tokenPresent, TOKEN_ENV } from './tokens.ts'

interface CodeAssistantConfig {
  api_mode: 'auto' | 'responses' | 'chat'
  default_model: string
  gh_command: string
  oauth_base_url: string
  acp_command?: string
  acp_args?: string[]
}

const HEADERS = { 'Copilot-Integration-Id': 'vscode-chat', 'Editor-Version': 'vscode/1.104.1', 'Openai-Intent': 'conversation-edits', 'User-Agent': 'agent/1.0' }

/** GPT-5 and later use the responses API, except gpt-5-mini; every other model uses chat completions. */
export function usesResponsesApi(model: string): boolean {
  const m = /^gpt-(\d+)/i.exec(model.trim())
  return !!m && Number(m[1]) >= 5 && !/^gpt-5-mini/i.test(model.trim())
}

/** Splits a command line with simple quoting: `--acp --model "x y"`. */
export function splitArgs(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!)
  return out
}

function onPath(command: string, settings: Settings): boolean {
  if (isAbsolute(command)) return existsSync(command)
  return (settings.env('PATH') ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, command)))
}

function acpCommand(settings: Settings, config: CodeAssistantConfig): { command: string; args: string[] } {
  const command = settings.env('AGENT_COPILOT_ACP_COMMAND') ?? settings.env('COPILOT_CLI_PATH') ?? config.acp_command ?? 'copilot'
  const rawArgs = settings.env('AGENT_COPILOT_ACP_ARGS')
  return { command, args: rawArgs !== undefined ? splitArgs(rawArgs) : (config.acp_args ?? ['--acp', '--stdio']) }
}

export default defineExtension<CodeAssistantConfig>({
  name: 'provider-code-assistant',
  version: '1.0.0',
  description: 'Code-assistant provider (device-code login; responses API or chat completions) and its ACP-shim variant',
  dependsOn: ['provider-openai-compat'],
  config: {
    type: 'object',
    properties: {
      api_mode: { enum: ['auto', 'responses', 'chat'], default: 'auto' },
      default_model: { type: 'string', default: 'gpt-4.1' },
      gh_command: { type: 'string', default: 'gh' },
      oauth_base_url: { type: 'string', default: 'https://github.com' },
      acp_command: { type: 'string' },
      acp_args: { type: 'array', items: { type: 'string' } },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config

    api.providers.register({
      specificationVersion: 1,
      name: 'copilot',
      aliases: ['github', 'github-copilot', 'github-models', 'github-model', 'code-assistant'],
      label: 'GitHub Copilot (code assistant)',
      envKeys: [...TOKEN_ENV, 'COPILOT_API_BASE_URL'],
      async create(options: ProviderOptions): Promise<ModelClient> {
        const { token } = await resolveToken(options.settings, config.gh_command || undefined, options.apiKey)
        const baseUrl = (options.baseUrl ?? options.settings.env('COPILOT_API_BASE_URL') ?? 'https://api.githubcopilot.com').replace(/\/+$/, '')
        const model = options.model ?? config.default_model
        const extra = options.extra ?? {}
        const responses = config.api_mode === 'responses' || (config.api_mode === 'auto' && usesResponsesApi(model))
        if (responses) {
          const { createResponsesClient } = await import('./responses-client.ts')
          return createResponsesClient({ provider: 'copilot', model, baseUrl, token, headers: HEADERS, timeoutMs: options.timeoutMs, retry: extra.retry as RetryPolicy | undefined, authHint: LOGIN_HINT, contextLength: typeof extra.contextLength === 'number' ? extra.contextLength : undefined, inputModalities: extra.inputModalities as InputModality[] | undefined, maxAnswerBytes: maxAnswerBytes(options.settings) })
        }
        // Chat completions: the OpenAI-compatible family's client, under this provider's name.
        const compat = api.providers.get('custom')
        if (!compat) throw new AgentError('E_PROVIDER', 'copilot: chat-completions mode needs the provider-openai-compat extension')
        return compat.create({ ...options, model, baseUrl, apiKey: token, extra: { ...extra, headers: HEADERS, label: 'copilot', authHint: LOGIN_HINT } })
      },
      configured: (settings) => tokenPresent(settings),
    })

    api.providers.register({
      specificationVersion: 1,
      name: 'copilot-acp',
      aliases: ['github-copilot-acp', 'copilot-acp-agent', 'code-assistant-acp'],
      label: 'GitHub Copilot through its ACP agent (subprocess)',
      envKeys: ['AGENT_COPILOT_ACP_COMMAND', 'AGENT_COPILOT_ACP_ARGS', 'COPILOT_CLI_PATH'],
      async create(options: ProviderOptions): Promise<ModelClient> {
        const { AcpClient } = await import('./acp-client.ts')
        const { command, args } = acpCommand(options.settings, config)
        return new AcpClient({ model: options.model ?? 'copilot', command, args, cwd: process.cwd(), timeoutMs: options.timeoutMs, retry: (options.extra ?? {}).retry as RetryPolicy | undefined, maxAnswerBytes: maxAnswerBytes(options.settings) })
      },
      configured: (settings) => {
        const { command } = acpCommand(settings, config)
        return onPath(command, settings) ? true : `the ACP command \`${command}\` was not found: install the vendor CLI or set AGENT_COPILOT_ACP_COMMAND`
      },
    })

    api.commands.register({
      name: 'login',
      category: 'Models',
      description: 'Log in to a provider that uses a device-code flow (copilot)',
      scope: 'cli',
      cli: {
        args: '<provider>',
        positionals: { provider: { type: 'string', describe: 'copilot', choices: ['copilot', 'github', 'github-copilot', 'code-assistant'] } },
        examples: [['agent login copilot', 'open the shown URL, enter the code; the token is saved to .env']],
        async run(ctx: CliContext) {
          const { deviceLogin } = await import('./device-login.ts')
          await deviceLogin({ oauthBaseUrl: config.oauth_base_url, settings: ctx.settings, signal: ctx.signal, say: (text) => ctx.out(text) })
          ctx.out(`Logged in. The token is saved in ${ctx.settings.envPath} as COPILOT_GITHUB_TOKEN; select it with \`agent config set model.provider copilot\`.`)
        },
      },
    })
  },
})
