// `agent mcp serve`: the agent's own tools as an MCP server over stdio. Every call goes through the
// beforeToolCall / afterToolCall hooks like a call from the agent loop (approvals, blocklists and
// checkpoints apply; a throwing guard blocks). Bridged MCP tools are left out unless asked, so two
// agents cannot loop through each other. Nothing but protocol messages is written to stdout.

import { randomUUID } from 'node:crypto'
import { AgentError, errorMessage, redactSecrets, toolEnabled, type CliContext, type ToolCallEvent, type ToolDefinition } from 'agent/sdk'

export interface ServeOptions {
  toolsets?: string[]
  includeMcp: boolean
  cwd: string
}

interface Entry {
  owner: string
  value: ToolDefinition
}

export function servedTools(ctx: CliContext, options: ServeOptions): Entry[] {
  return ctx.tools
    .entries()
    .filter(({ owner, value }) => {
      const toolset = value.toolset ?? owner
      if (!options.includeMcp && (owner === 'mcp' || value.name.startsWith('mcp__'))) return false
      if (options.toolsets?.length && !options.toolsets.includes(toolset)) return false
      if (!toolEnabled(value, ctx.settings, owner)) return false
      const available = value.available?.(ctx.settings) ?? true
      return available === true
    })
    .sort((a, b) => a.value.name.localeCompare(b.value.name))
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  return JSON.stringify(value)
}

/** Serves until the client closes stdin or the process is interrupted. */
export async function serve(ctx: CliContext, options: ServeOptions, version: string): Promise<void> {
  const [{ Server }, { StdioServerTransport }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  const server = new Server({ name: 'agent', version }, { capabilities: { tools: {} } })
  const sessionId = `mcp-serve-${randomUUID()}`
  const secrets = () => ctx.settings.secretValues()

  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
    tools: servedTools(ctx, options).map(({ value }) => ({
      name: value.name,
      description: value.description,
      inputSchema: { ...value.parameters, type: 'object' } as { type: 'object'; [key: string]: unknown },
    })),
  }))

  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const entry = servedTools(ctx, options).find((e) => e.value.name === request.params.name)
    if (!entry) return { content: [{ type: 'text' as const, text: `unknown tool "${request.params.name}"` }], isError: true }
    const tool = entry.value
    const event: ToolCallEvent = {
      tool: tool.name,
      toolset: tool.toolset ?? entry.owner,
      callId: `mcp_${randomUUID()}`,
      input: request.params.arguments ?? {},
      session: { id: sessionId, cwd: options.cwd, source: { platform: 'mcp' }, extra: { surface: 'mcp' } },
      modifiesFiles: Boolean(tool.modifiesFiles),
    }
    try {
      const verdict = await ctx.hooks.beforeToolCall.promise(event)
      if (verdict?.block) return { content: [{ type: 'text' as const, text: verdict.reason }], isError: true }
      let outcome
      try {
        const value = await tool.execute({ input: event.input, callId: event.callId, signal: extra.signal, session: event.session })
        outcome = { ok: true, result: asText(value) }
      } catch (error) {
        outcome = { ok: false, result: errorMessage(error) }
      }
      outcome = await ctx.hooks.afterToolCall.promise(outcome, event)
      return { content: [{ type: 'text' as const, text: redactSecrets(outcome.result, secrets()) }], isError: !outcome.ok }
    } catch (error) {
      return { content: [{ type: 'text' as const, text: redactSecrets(`blocked: ${errorMessage(error)}`, secrets()) }], isError: true }
    }
  })

  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.once('end', () => resolve())
    if (ctx.signal.aborted) resolve()
    ctx.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  await server.connect(transport)
  ctx.err(`agent mcp serve: ${servedTools(ctx, options).length} tools on stdio`)
  await closed
  await server.close().catch((error: unknown) => {
    throw new AgentError('E_MCP', `closing the MCP server failed: ${errorMessage(error)}`)
  })
}
