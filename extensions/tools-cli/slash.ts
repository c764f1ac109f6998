// `/tools [list|enable|disable] <names…>`: the conversation's tools, switched for this session only.

import { chatOf, type SlashContext } from 'agent/sdk'

export async function toolsSlash(ctx: SlashContext): Promise<void> {
  const chat = chatOf(ctx)
  const [sub = 'list', ...names] = ctx.args.split(/[\s,]+/).filter(Boolean)
  if (sub === 'list') {
    const tools = chat.tools()
    if (tools.length === 0) return void (await ctx.reply('No tools are registered.'))
    const lines = tools.map((t) => `  ${t.enabled ? '✓' : '✗'} ${t.name} [${t.toolset}]${t.available === true ? '' : ` - unavailable: ${t.available}`}`)
    return void (await ctx.reply(`Tools (✓ enabled for this session):\n${lines.join('\n')}\nChange with /tools enable|disable <tool or toolset>…`))
  }
  if (sub !== 'enable' && sub !== 'disable') return void (await ctx.reply('Usage: /tools [list | enable <names…> | disable <names…>]'))
  if (names.length === 0) return void (await ctx.reply(`Usage: /tools ${sub} <tool or toolset>…`))
  const known = new Set(chat.tools().flatMap((t) => [t.name, t.toolset]))
  const unknown = names.filter((n) => !known.has(n))
  if (unknown.length) return void (await ctx.reply(`✗ Unknown tool or toolset: ${unknown.join(', ')}. Nothing changed; see /tools list.`))
  const changed = chat.setToolsEnabled(names, sub === 'enable')
  await ctx.reply(changed.length ? `${sub === 'enable' ? 'Enabled' : 'Disabled'} for this session: ${changed.join(', ')}.` : `Nothing to change: already ${sub}d.`)
}
