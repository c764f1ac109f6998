// What the agent answers when a server asks: the client capabilities it declares and their handlers.
// roots: the workspace. sampling: the agent's own model, under the approval policy (approvals.mode
// off, an allowlisted `mcp_sampling:<server>`, or a person answering through the run's approval
// prompt or in the messaging chat the run came from; nobody to ask refuses). elicitation: the run's `extra.elicitationPrompt` when a surface
// offers one, else the messaging chat the run came from, else declined. logging: server log lines
// into our log.

import { pathToFileURL } from 'node:url'
import type { ChatQuestions } from './chat-questions.ts'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { MODELS_SERVICE, errorMessage, type ApprovalChoice, type ApprovalPrompt, type ElicitationField, type ElicitationPrompt, type ChatMessage, type ContentPart, type Logger, type ModelsService, type Services, type Settings, type ToolSession } from 'agent/sdk'

export const CLIENT_CAPABILITIES = {
  roots: { listChanged: false },
  sampling: {},
  elicitation: { form: {} },
}

export interface HandlerContext {
  server: string
  settings: Settings
  services: Pick<Services, 'get'>
  log: Logger
  /** The session of the call now running on this server (server requests arrive during a call). */
  activeSession(): ToolSession | undefined
  /** Sampling allowed for this server for the rest of the process (an answer of session/always). */
  samplingGranted: Set<string>
  /** Asks in a messaging chat when the run came from one and no surface prompt is passed (the current version's). */
  chat(): ChatQuestions | undefined
}

const LOG_LEVELS: Record<string, 'debug' | 'info' | 'warn' | 'error'> = { debug: 'debug', info: 'info', notice: 'info', warning: 'warn', error: 'error', critical: 'error', alert: 'error', emergency: 'error' }

export async function installHandlers(client: Client, ctx: HandlerContext): Promise<void> {
  const types = await import('@modelcontextprotocol/sdk/types.js')
  client.setRequestHandler(types.ListRootsRequestSchema, () => {
    const cwd = ctx.activeSession()?.cwd ?? process.cwd()
    return { roots: [{ uri: pathToFileURL(cwd).href, name: 'workspace' }] }
  })
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (notification) => {
    const { level, logger, data } = notification.params
    const text = typeof data === 'string' ? data : JSON.stringify(data)
    ctx.log[LOG_LEVELS[level] ?? 'info'](`MCP server "${ctx.server}"${logger ? ` (${logger})` : ''}: ${text.slice(0, 2000)}`)
  })
  client.setRequestHandler(types.ElicitRequestSchema, async (request) => {
    const session = ctx.activeSession()
    const prompt = session?.extra?.elicitationPrompt as ElicitationPrompt | undefined
    const params = request.params as { message: string; requestedSchema?: unknown; mode?: string }
    if (params.mode !== 'url') {
      const form = { from: `MCP server "${ctx.server}"`, message: params.message, fields: formFields(params.requestedSchema) }
      if (typeof prompt === 'function') return prompt(form)
      const chat = ctx.chat()
      if (chat?.canAsk(session?.source)) return chat.ask(session!.source!, form)
    }
    ctx.log.info(`MCP server "${ctx.server}" asked the user a question; no one can answer here: declined`)
    return { action: 'decline' as const }
  })
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request, extra) => {
    const params = request.params
    const question = params.messages.map((m) => (m.content as { type: string; text?: string }).text ?? '').join('\n')
    await approveSampling(ctx, question)
    const models = ctx.services.get<ModelsService>(MODELS_SERVICE)
    if (!models) throw new types.McpError(types.ErrorCode.InternalError, 'no model is available to sample with')
    const model = await models.resolve({})
    const messages: ChatMessage[] = []
    if (params.systemPrompt) messages.push({ role: 'system', content: params.systemPrompt })
    for (const m of params.messages) messages.push({ role: m.role, content: samplingContent(m.content) })
    const response = await model.complete({ messages, ...(params.maxTokens ? { maxTokens: params.maxTokens } : {}), ...(params.temperature !== undefined ? { temperature: params.temperature } : {}), ...(params.stopSequences ? { stop: params.stopSequences } : {}) }, { signal: extra.signal })
    return { role: 'assistant' as const, model: model.model, stopReason: response.finishReason === 'length' ? 'maxTokens' : 'endTurn', content: { type: 'text' as const, text: response.content ?? '' } }
  })
}

type Choices = { enum?: unknown[]; enumNames?: unknown[]; oneOf?: Array<{ const?: unknown; title?: unknown }>; anyOf?: Array<{ const?: unknown; title?: unknown }> }

function choicesOf(schema: Choices | undefined): ElicitationField['choices'] {
  const titled = schema?.oneOf ?? schema?.anyOf
  if (titled) return titled.map((c) => ({ value: String(c.const), label: String(c.title ?? c.const) }))
  if (schema?.enum) return schema.enum.map((v, i) => ({ value: String(v), label: String(schema.enumNames?.[i] ?? v) }))
  return undefined
}

/** An elicitation's requested schema (a flat object of primitives and multi-selects) as form fields. */
export function formFields(schema: unknown): ElicitationField[] {
  const s = (schema ?? {}) as { properties?: Record<string, Record<string, unknown>>; required?: string[] }
  const types = ['string', 'number', 'integer', 'boolean', 'array'] as const
  return Object.entries(s.properties ?? {}).map(([name, p]) => {
    const type = types.find((t) => t === p.type) ?? 'string'
    const choices = choicesOf((type === 'array' ? p.items : p) as Choices | undefined)
    return {
      name,
      title: typeof p.title === 'string' ? p.title : name,
      ...(typeof p.description === 'string' ? { description: p.description } : {}),
      type,
      ...(choices ? { choices } : {}),
      required: (s.required ?? []).includes(name),
      ...(p.default !== undefined ? { default: p.default as ElicitationField['default'] } : {}),
      ...(typeof p.minimum === 'number' ? { minimum: p.minimum } : {}),
      ...(typeof p.maximum === 'number' ? { maximum: p.maximum } : {}),
    }
  })
}

/** MCP sampling content (one part or several) as chat content: text, and images as data URLs. */
function samplingContent(content: unknown): string | ContentPart[] {
  const parts = (Array.isArray(content) ? content : [content]) as Array<{ type: string; text?: string; data?: string; mimeType?: string }>
  const out: ContentPart[] = parts.flatMap((p): ContentPart[] => (p.type === 'text' ? [{ type: 'text', text: p.text ?? '' }] : p.type === 'image' ? [{ type: 'image_url', image_url: { url: `data:${p.mimeType};base64,${p.data}` } }] : []))
  return out.length === 1 && out[0]!.type === 'text' ? out[0]!.text : out
}

/** Throws (refusing the request) unless the user's approval policy lets this server use the model. */
async function approveSampling(ctx: HandlerContext, question: string): Promise<void> {
  const key = `mcp_sampling:${ctx.server}`
  if (ctx.settings.get<string>('approvals.mode') === 'off') return
  if ((ctx.settings.get<string[]>('approvals.allowlist') ?? []).includes(key) || ctx.samplingGranted.has(key)) return
  const session = ctx.activeSession()
  const prompt = session?.extra?.approvalPrompt as ApprovalPrompt | undefined
  const refuse = (why: string) => {
    ctx.log.info(`sampling request of MCP server "${ctx.server}" refused: ${why}`)
    return new Error(`the user did not allow sampling: ${why}`)
  }
  const chat = ctx.chat()
  if (typeof prompt !== 'function' && chat?.canAsk(session?.source)) {
    // A messaging chat: a yes/no question there.
    const answer = await chat.ask(session!.source!, { from: `MCP server "${ctx.server}"`, message: `may it use the model to answer this? "${question.slice(0, 300)}"`, fields: [] })
    if (answer.action !== 'accept') throw refuse('denied in the chat')
    return
  }
  if (typeof prompt !== 'function' || !session) throw refuse('no one to ask (set approvals.mode off or allowlist ' + key + ')')
  const now = Date.now()
  let choice: ApprovalChoice
  try {
    choice = await prompt({ id: `mcp-sampling-${now}`, sessionId: session.id, source: session.source, tool: `mcp:${ctx.server}`, command: `sampling: ${question.slice(0, 500)}`, findings: [{ key, description: `MCP server "${ctx.server}" asks to use the model` }], createdAt: now, expiresAt: now + 120_000 })
  } catch (error) {
    throw refuse(errorMessage(error))
  }
  if (choice === 'deny') throw refuse('denied')
  if (choice !== 'once') ctx.samplingGranted.add(key)
}
