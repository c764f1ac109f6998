// `agent mcp serve`: the agent as an MCP server over stdio — its own tools (structured results, and
// images from the sdk's toolResult), resources (sessions, transcripts, skills) and prompts (skills). Every call goes through
// the beforeToolCall / afterToolCall hooks like a call from the agent loop (approvals, blocklists and
// checkpoints apply; a throwing guard blocks); a command that needs approval is asked through the
// client's elicitation when it offers it, else refused. Bridged MCP tools are left out unless asked,
// so two agents cannot loop through each other. stdout carries the protocol alone: the command is
// declared `stdio: 'protocol'` and writes to `ctx.protocolOut`.

import { randomUUID } from 'node:crypto'
import { AgentError, errorMessage, isToolResultWithImages, redactSecrets, toolEnabled, type ApprovalPrompt, type CliContext, type ToolCallEvent, type ToolDefinition } from 'agent/sdk'
import { NotServed, ServeCatalog } from './serve-catalog.ts'
import { servedResult } from './serve-results.ts'

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

/** The text the agent's model would read for a value (same shape as the runtime's). */
function asText(value: unknown): string {
  if (typeof value === 'string') return value
  if (isToolResultWithImages(value)) return value.text
  if (value === undefined || value === null) return ''
  return JSON.stringify(value, null, 2) ?? String(value)
}

const APPROVAL_SCHEMA = {
  type: 'object' as const,
  properties: {
    decision: {
      type: 'string' as const,
      title: 'Run this command?',
      enum: ['once', 'session', 'always', 'deny'],
      enumNames: ['Allow once', 'Allow for this session', 'Always allow (saved to config)', 'Reject'],
    },
  },
  required: ['decision'],
}

type ElicitingServer = {
  getClientCapabilities(): { elicitation?: unknown } | undefined
  elicitInput(params: { message: string; requestedSchema: typeof APPROVAL_SCHEMA }, options?: { signal?: AbortSignal; timeout?: number }): Promise<{ action: string; content?: Record<string, unknown> }>
}

/** Approvals asked with elicitation/create; a client without it cannot be asked (the guard then denies). */
function elicitationPrompt(server: ElicitingServer, signal: AbortSignal): ApprovalPrompt {
  return async (request) => {
    if (!server.getClientCapabilities()?.elicitation) throw new Error('this MCP client cannot ask its user (it does not offer elicitation)')
    const reasons = request.findings.map((f) => f.description).join('; ')
    const answer = await server.elicitInput(
      { message: `Approval needed: ${reasons}\n\n${request.command}`, requestedSchema: APPROVAL_SCHEMA },
      { signal, timeout: Math.max(1, request.expiresAt - Date.now()) },
    )
    const decision = answer.action === 'accept' ? answer.content?.decision : undefined
    return decision === 'once' || decision === 'session' || decision === 'always' ? decision : 'deny'
  }
}

/** Serves until the client closes stdin or the process is interrupted. */
export async function serve(ctx: CliContext, options: ServeOptions, version: string): Promise<void> {
  const [{ Server }, { StdioServerTransport }, types, { AjvJsonSchemaValidator }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
  ])
  const { McpError, ErrorCode } = types
  const server = new Server(
    { name: 'agent', title: 'agent', version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: "The agent's own tools, run with its guards and approvals; its stored sessions and skills as resources; its skills as prompts.",
    },
  )
  const sessionId = `mcp-serve-${randomUUID()}`
  const secrets = () => ctx.settings.secretValues()
  const catalog = new ServeCatalog(ctx.services, secrets)
  // Arguments are checked against the tool's inputSchema before any guard runs (bad input: -32602).
  const schemas = new AjvJsonSchemaValidator()
  const validators = new WeakMap<ToolDefinition, ((input: unknown) => { valid: boolean; errorMessage?: string }) | null>()
  const checkArguments = (tool: ToolDefinition, input: unknown) => {
    if (!validators.has(tool)) {
      try {
        validators.set(tool, schemas.getValidator({ ...tool.parameters, type: 'object' } as Parameters<typeof schemas.getValidator>[0]))
      } catch {
        validators.set(tool, null) // a schema ajv cannot compile: the tool checks its own input
      }
    }
    const verdict = validators.get(tool)?.(input)
    if (verdict && !verdict.valid) throw new McpError(ErrorCode.InvalidParams, `invalid arguments for "${tool.name}": ${verdict.errorMessage}`)
  }
  const notFound = (error: unknown) => {
    if (error instanceof NotServed) throw new McpError(ErrorCode.InvalidParams, error.message)
    throw error
  }

  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
    tools: servedTools(ctx, options).map(({ value }) => ({
      name: value.name,
      description: value.description,
      inputSchema: { ...value.parameters, type: 'object' } as { type: 'object'; [key: string]: unknown },
      ...(value.outputSchema ? { outputSchema: { ...value.outputSchema, type: 'object' } as { type: 'object'; [key: string]: unknown } } : {}),
    })),
  }))

  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const entry = servedTools(ctx, options).find((e) => e.value.name === request.params.name)
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${request.params.name}"`)
    const tool = entry.value
    checkArguments(tool, request.params.arguments ?? {})
    const event: ToolCallEvent = {
      tool: tool.name,
      toolset: tool.toolset ?? entry.owner,
      callId: `mcp_${randomUUID()}`,
      input: request.params.arguments ?? {},
      session: {
        id: sessionId,
        cwd: options.cwd,
        source: { platform: 'mcp' },
        extra: { surface: 'mcp', approvalPrompt: elicitationPrompt(server, extra.signal) },
      },
      modifiesFiles: Boolean(tool.modifiesFiles),
      signal: extra.signal,
    }
    try {
      const verdict = await ctx.hooks.beforeToolCall.promise(event)
      if (verdict?.block) return { content: [{ type: 'text' as const, text: redactSecrets(verdict.reason, secrets()) }], isError: true }
      let value: unknown
      let outcome
      try {
        value = await tool.execute({ input: event.input, callId: event.callId, signal: extra.signal, session: event.session })
        outcome = { ok: true, result: asText(value) }
      } catch (error) {
        outcome = { ok: false, result: errorMessage(error) }
      }
      const raw = outcome.result
      outcome = await ctx.hooks.afterToolCall.promise(outcome, event)
      return servedResult(value, outcome, raw, secrets(), tool.outputSchema !== undefined)
    } catch (error) {
      return { content: [{ type: 'text' as const, text: redactSecrets(`blocked: ${errorMessage(error)}`, secrets()) }], isError: true }
    }
  })

  server.setRequestHandler(types.ListResourcesRequestSchema, async (request) => {
    const offset = request.params?.cursor ? Number.parseInt(request.params.cursor, 10) : 0
    if (!Number.isInteger(offset) || offset < 0) throw new McpError(ErrorCode.InvalidParams, 'cursor is not one this server gave out')
    const { resources, next } = await catalog.list(offset)
    return { resources, ...(next !== undefined ? { nextCursor: String(next) } : {}) }
  })
  server.setRequestHandler(types.ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: catalog.templates() }))
  server.setRequestHandler(types.ReadResourceRequestSchema, async (request) => ({ contents: [await catalog.read(request.params.uri).catch(notFound)] }))
  server.setRequestHandler(types.ListPromptsRequestSchema, async () => ({ prompts: catalog.prompts() }))
  server.setRequestHandler(types.GetPromptRequestSchema, async (request) => {
    try {
      return catalog.prompt(request.params.name, request.params.arguments)
    } catch (error) {
      return notFound(error)
    }
  })

  const transport = new StdioServerTransport(process.stdin, (ctx.protocolOut ?? process.stdout) as import('node:stream').Writable)
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
