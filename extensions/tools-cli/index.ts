// One registry entry `tools`: `agent tools` (choose tool backends and toolsets), `agent tools list
// [--json]`, `agent tools enable|disable <names…>` (config), and `/tools` (this session only).

import { defineExtension, type CliContext } from 'agent/sdk'

export default defineExtension({
  name: 'tools-cli',
  version: '1.0.0',
  description: 'agent tools (backend and toolset choice, list, enable/disable) and /tools',
  setup(api) {
    api.commands.register({
      name: 'tools',
      category: 'Tools & Skills',
      description: 'Choose tool backends and toolsets; list, enable or disable tools',
      argsHint: '[list|enable|disable] [names…]',
      async slash(ctx) {
        const { toolsSlash } = await import('./slash.ts')
        await toolsSlash(ctx)
      },
      cli: {
        async run(ctx: CliContext) {
          const { toolsWizard } = await import('./wizard.ts')
          return toolsWizard(ctx)
        },
        examples: [
          ['agent tools', 'choose web.backend and the like, and the toolsets that are on'],
          ['agent config set web.backend <backend>', 'the same choice without questions'],
        ],
        subcommands: {
          list: {
            description: 'Every registered tool: name, toolset, owner, enabled, available',
            options: { json: { type: 'boolean', describe: 'Print one JSON document' } },
            async run(ctx: CliContext) {
              const { listTools } = await import('./list.ts')
              listTools(ctx)
            },
          },
          enable: {
            description: 'Enable tools or toolsets for every conversation (removes them from tools.disabled)',
            args: '<names..>',
            async run(ctx: CliContext) {
              const { switchTools } = await import('./list.ts')
              await switchTools(ctx, true)
            },
          },
          disable: {
            description: 'Disable tools or toolsets for every conversation (tools.disabled)',
            args: '<names..>',
            async run(ctx: CliContext) {
              const { switchTools } = await import('./list.ts')
              await switchTools(ctx, false)
            },
          },
        },
      },
    })
  },
})
