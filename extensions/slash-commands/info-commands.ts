// Info slash commands: /usage (tokens, cost breakdown, duration), /help (derived from the registry),
// and the CLI-only /statusbar and /quit.

import { CHAT_CONFIG, chatOf, costText, formatUsd, helpText, type CommandDefinition, type ExtensionApi, type SlashContext } from 'agent/sdk'
import { contextLine, formatDuration, formatTokens, table } from './format.ts'

export function infoCommands(api: ExtensionApi): CommandDefinition[] {
  return [
    {
      name: 'usage',
      category: 'Info',
      description: 'Token usage, cost breakdown and duration of this session',
      async slash(ctx: SlashContext) {
        const chat = chatOf(ctx)
        const u = chat.usage()
        const m = chat.model()
        const rows: Array<[string, string]> = [
          ['model', `${m.provider}:${m.model}`],
          ['turns', `${u.turns} (${u.apiCalls} model calls)`],
          ['input tokens', formatTokens(u.inputTokens)],
          ['output tokens', formatTokens(u.outputTokens) + (u.reasoningTokens ? ` (${formatTokens(u.reasoningTokens)} reasoning)` : '')],
          ['total tokens', formatTokens(u.totalTokens)],
          ['context', contextLine(u)],
        ]
        if (api.settings.get<boolean>(CHAT_CONFIG.showCost) !== false) {
          if (u.costUsd === undefined) rows.push(['cost', costText(undefined, [m.model])])
          else {
            const parts = u.inputCostUsd !== undefined && u.outputCostUsd !== undefined ? ` (input ${formatUsd(u.inputCostUsd)} + output ${formatUsd(u.outputCostUsd)})` : ''
            rows.push(['cost', `${formatUsd(u.costUsd)}${parts}`])
          }
        }
        rows.push(['duration', formatDuration(Date.now() - u.startedAt)])
        await ctx.reply(`Session usage:\n${table(rows)}`)
      },
    },
    {
      name: 'help',
      category: 'Info',
      description: 'List the slash commands',
      async slash(ctx: SlashContext) {
        await ctx.reply(`Commands:\n${helpText(api.commands.list(), ctx.surface)}`)
      },
    },
    {
      name: 'statusbar',
      aliases: ['sb'],
      category: 'Configuration',
      description: 'Show or hide the status bar',
      scope: 'cli',
      async slash(ctx: SlashContext) {
        const bar = chatOf(ctx).statusBar
        if (!bar) return void (await ctx.reply('This chat has no status bar.'))
        bar.setVisible(!bar.visible())
        await ctx.reply(`Status bar ${bar.visible() ? 'on' : 'off'}.`)
      },
    },
    {
      name: 'quit',
      aliases: ['exit'],
      category: 'Exit',
      description: 'Leave the chat',
      scope: 'cli',
      async slash(ctx: SlashContext) {
        const chat = chatOf(ctx)
        if (!chat.exit) return void (await ctx.reply('This chat cannot be left from here.'))
        chat.exit()
      },
    },
  ]
}
