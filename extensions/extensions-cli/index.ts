// `agent extensions list|reload`: what is loaded, from where, and why something failed.

import { defineExtension, type CliContext, type ExtensionInfo } from 'agent/sdk'

function table(rows: ExtensionInfo[]): string {
  const lines = rows.map((e) => [e.name, e.version, e.source, e.state === 'failed' ? `failed: ${e.reason ?? ''}` : e.state])
  const widths = [0, 1, 2].map((i) => Math.max(...lines.map((l) => l[i]!.length), ['NAME', 'VERSION', 'SOURCE'][i]!.length))
  const pad = (cells: string[]) => cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join('  ')
  return [pad(['NAME', 'VERSION', 'SOURCE', 'STATE']), ...lines.map(pad)].join('\n')
}

export default defineExtension({
  name: 'extensions-cli',
  version: '1.0.0',
  setup(api) {
    api.commands.register({
      name: 'extensions',
      category: 'Plugins',
      description: 'List extensions and their state',
      cli: {
        subcommands: {
          list: {
            description: 'Every extension: name, version, source (builtin, user, plugin, project), state',
            options: { json: { type: 'boolean', describe: 'Print one JSON document' } },
            run(ctx: CliContext) {
              const rows = ctx.extensions().sort((a, b) => a.source.localeCompare(b.source) || a.name.localeCompare(b.name))
              if (ctx.argv.json) ctx.json(rows.map(({ name, version, source, state, reason, path }) => ({ name, version, source, state, ...(reason ? { reason } : {}), path })))
              else ctx.out(table(rows))
            },
          },
        },
      },
    })
  },
})
