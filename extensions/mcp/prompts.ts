// A server's prompts as slash commands of the central registry: `/<server>-<prompt> [args]` fetches
// the prompt (arguments as `name=value`, or the whole text when it takes one argument) and sends
// its text to the conversation as the next prompt (or shows it where there is no conversation). A
// missing argument is named with the server's completions for it, when it offers completions.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { UsageError, type CommandDefinition } from 'agent/sdk'
import type { CachedPrompt } from './cache.ts'
import type { McpManager } from './connection.ts'

export const promptCommandName = (server: string, prompt: string) => `${server}-${prompt}`.toLowerCase().replace(/[^a-z0-9_-]/g, '_').slice(0, 64)

/** `a=1 b="two words"` (or the whole text for a one-argument prompt) → arguments, and the required ones missing; unknown names throw. */
export function promptArguments(prompt: CachedPrompt, text: string): { args: Record<string, string>; missing: string[] } {
  const declared = prompt.arguments ?? []
  const args: Record<string, string> = {}
  if (declared.length === 1 && text && !/^\w+=/.test(text)) args[declared[0]!.name] = text
  else for (const m of text.matchAll(/(\w+)=(?:"([^"]*)"|(\S+))/g)) args[m[1]!] = m[2] ?? m[3] ?? ''
  const unknown = Object.keys(args).filter((k) => !declared.some((a) => a.name === k))
  if (unknown.length) throw new UsageError(`unknown argument ${unknown.join(', ')}; this prompt takes ${declared.map((a) => a.name).join(', ') || 'no arguments'}`)
  return { args, missing: declared.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name) }
}

/** The server's completions for an argument (given the others), when it offers completions; else none. */
async function suggestions(client: Client, prompt: string, argument: string, context: Record<string, string>, timeout: number): Promise<string[]> {
  if (!client.getServerCapabilities()?.completions) return []
  const result = await client.complete({ ref: { type: 'ref/prompt', name: prompt }, argument: { name: argument, value: '' }, context: { arguments: context } }, { timeout })
  return result.completion.values.slice(0, 10)
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
      const { args, missing } = promptArguments(prompt, ctx.args)
      if (missing.length) {
        const hint = await manager()
          .use(server, undefined, (client, slot) => suggestions(client, prompt.name, missing[0]!, args, slot.config.timeoutMs))
          .catch(() => [])
        throw new UsageError(`missing ${missing.join(', ')} (give name=value)${hint.length ? `; ${missing[0]} could be: ${hint.join(', ')}` : ''}`)
      }
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
