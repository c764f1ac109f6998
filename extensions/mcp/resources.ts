// A server's resources as two agent tools, registered when the server offers resources:
// `mcp__<server>__list_resources` (resources and templates) and `mcp__<server>__read_resource`
// (any URI, including the resource links tools return). Text comes back as it is; binary contents
// are described, not inlined.

import { defineTool, type ToolDefinition } from 'agent/sdk'
import { bridgedName, toolsetOf } from './bridge.ts'
import type { McpManager } from './connection.ts'

const MAX_CHARS = 100_000

export function resourceTools(server: string, manager: () => McpManager): ToolDefinition[] {
  const list = defineTool<{ cursor?: string }>({
    name: bridgedName(server, 'list_resources'),
    toolset: toolsetOf(server),
    description: `[MCP ${server}] List the resources (and URI templates) the server offers; read one with ${bridgedName(server, 'read_resource')}.`,
    parameters: { type: 'object', properties: { cursor: { type: 'string', description: 'Cursor from a previous page' } } },
    async execute({ input, signal, session }) {
      return manager().use(server, session, async (client, slot) => {
        const options = { timeout: slot.config.timeoutMs, signal }
        const page = await client.listResources(input?.cursor ? { cursor: input.cursor } : undefined, options)
        const lines = page.resources.map((r) => `${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}${r.description ? ` — ${r.description}` : ''}`)
        if (!input?.cursor) {
          const templates = await client.listResourceTemplates(undefined, options).catch(() => ({ resourceTemplates: [] }))
          for (const t of templates.resourceTemplates) lines.push(`${t.uriTemplate}  ${t.name} (template)${t.description ? ` — ${t.description}` : ''}`)
        }
        if (page.nextCursor) lines.push(`more: call again with cursor "${page.nextCursor}"`)
        return lines.join('\n') || 'no resources'
      })
    },
  })
  const read = defineTool<{ uri: string }>({
    name: bridgedName(server, 'read_resource'),
    toolset: toolsetOf(server),
    description: `[MCP ${server}] Read a resource of the server by URI (from ${bridgedName(server, 'list_resources')} or a resource link in a tool result).`,
    parameters: { type: 'object', properties: { uri: { type: 'string', description: 'The resource URI' } }, required: ['uri'] },
    async execute({ input, signal, session }) {
      return manager().use(server, session, async (client, slot) => {
        const result = await client.readResource({ uri: String(input.uri) }, { timeout: slot.config.timeoutMs, signal })
        const text = result.contents
          .map((c) => ('text' in c && typeof c.text === 'string' ? c.text : `[${c.uri}: binary ${c.mimeType ?? 'data'}, ${Math.floor(((('blob' in c && typeof c.blob === 'string' ? c.blob : '').length) * 3) / 4)} bytes]`))
          .join('\n')
        return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n[truncated: ${text.length} characters]` : text
      })
    },
  })
  return [list, read]
}
