// `agent model` (provider and model selection, custom endpoints with a context-length question),
// `agent setup` (the full wizard) and `/model` (one registry entry per name). Wizards import
// `prompts` lazily; every question has a flag or `agent config set` equivalent.

import { defineExtension, type CliContext } from 'agent/sdk'

export default defineExtension({
  name: 'model-wizard',
  version: '1.0.0',
  description: 'agent model, agent setup and /model',
  setup(api) {
    api.commands.register({
      name: 'model',
      category: 'Configuration',
      description: 'Choose the model provider and model (interactive in a terminal; flags otherwise)',
      argsHint: '[<model> | <provider>:<model> | custom[:<name>][:<model>]] [--save]',
      async slash(ctx) {
        const { modelSlash } = await import('./model-slash.ts')
        await modelSlash(api, ctx)
      },
      cli: {
        options: {
          provider: { type: 'string', describe: 'Provider name or alias (custom for an OpenAI-compatible endpoint)' },
          model: { type: 'string', describe: 'Model id (default: the provider default, or what the endpoint serves)' },
          'base-url': { type: 'string', describe: 'Custom endpoint base URL, e.g. http://127.0.0.1:8080/v1' },
          name: { type: 'string', describe: 'Save the custom endpoint under this name (custom_providers)' },
          'api-key': { type: 'string', describe: 'API key (stored in .env, mode 0600)' },
          'context-length': { type: 'number', describe: 'Context window of a custom endpoint, in tokens' },
          check: { type: 'boolean', default: true, describe: 'Check that a custom endpoint answers before saving (--no-check to skip)' },
          list: { type: 'boolean', describe: 'List providers and whether each is configured' },
          json: { type: 'boolean', describe: 'Print one JSON document (with --list or alone)' },
        },
        examples: [
          ['agent model', 'choose interactively'],
          ['agent model --provider openrouter --model anthropic/claude-sonnet-4.5 --api-key sk-…', 'without questions'],
          ['agent model --base-url http://127.0.0.1:8080/v1 --context-length 32768', 'a local OpenAI-compatible server'],
        ],
        async run(ctx: CliContext) {
          const { modelCommand } = await import('./command.ts')
          return modelCommand(ctx)
        },
      },
    })
    api.commands.register({
      name: 'setup',
      category: 'Configuration',
      description: 'Full setup wizard: model, tools, gateway, display',
      cli: {
        async run(ctx: CliContext) {
          const { setupWizard } = await import('./setup.ts')
          return setupWizard(ctx)
        },
      },
    })
  },
})
