// A server's prompts as slash commands of the central registry: `/<server>-<prompt> [args]` fetches
// the prompt (arguments as `name=value`, or the whole text when it takes one argument) and sends
// its text to the conversation as the next prompt (or shows it where there is no conversation).

import { UsageError, type CommandDefinition } from 'agent/sdk'
import type { CachedPrompt } from './cache.ts'
import type { McpManager } from './connection.ts'

export const promptCommandName = (server: string, prompt: string) => `${server}-${prompt}`.toLowerCase().replace(/[^a-z0-9_-]/g, '_').slice(0, 64)

/** `a=1 b="two words"` (or the whole text for a one-argument prompt) → arguments; missing required ones throw. */
export function promptArguments(prompt: CachedPrompt, text: string): Record<string, string> {
  const declared = prompt.arguments ?? []
  const out: Record<string, string> = {}
  if (declared.length === 1 && text && !/^\w+=/.test(text)) out[declared[0]!.name] = text
  else for (const m of text.matchAll(/(\w+)=(?:"([^"]*)"|(\S+))/g)) out[m[1]!] = m[2] ?? m[3] ?? ''
  const unknown = Object.keys(out).filter((k) => !declared.some((a) => a.name === k))
  if (unknown.length) throw new UsageError(`unknown argument ${unknown.join(', ')}; this prompt takes ${declared.map((a) => a.name).join(', ') || 'no arguments'}`)
  const missing = declared.filter((a) => a.required && out[a.name] === undefined).map((a) => a.name)
  if (missing.length) throw new UsageError(`missing ${missing.join(', ')} (give name=value)`)
  return out
}

export function promptCommand(server: string, prompt: CachedPrompt, manager: () => McpManager): CommandDefinition {
  const hint = (prompt.arguments ?? []).map((a) => (a.required ? `${a.name}=…` : `[${a.name}=…]`)).join(' ')
  return {
    name: promptCommandName(server, prompt.name),
    category: 'MCP prompts',
    description: `[MCP ${server}] ${prompt.description ?? prompt.name}`.slice(0, 200),
    ...(hint ? { argsHint: hint } : {}),
    scope: 'both',
    async slash(ctx) {
      const args = promptArguments(prompt, ctx.args)
      const result = await manager().use(server, undefined, (client, slot) => client.getPrompt({ name: prompt.name, arguments: args }, { timeout: slot.config.timeoutMs }))
      const text = result.messages
        .map((m) => (m.content.type === 'text' ? m.content.text : m.content.type === 'resource' && 'text' in m.content.resource ? String(m.content.resource.text) : `[${m.content.type}]`))
        .join('\n\n')
      if (ctx.chat) {
        ctx.chat.queue(text)
        await ctx.reply(`prompt ${prompt.name} of ${server} sent`)
      } else await ctx.reply(text)
    },
  }
}
