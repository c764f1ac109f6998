// Which tools a run offers, and how one batch of tool calls runs: ids made unique (a provider may
// send none), arguments parsed, beforeToolCall consulted (a block or a failing guard stops the call,
// fail closed), the tool executed, its result passed through afterToolCall, cleared of known secrets
// and capped. What the events show (the tool name, the arguments, progress lines) is cleared of
// known secrets too, before any cut. Calls that modify files run one after another in the model's
// order; the others run in parallel.

import { errorMessage, isToolResultWithImages, redactDeep, toolEnabled, withSpan, type ToolResultWithImages, type ExtensionApi, type OfferedToolsOptions, type RunEvent, type ToolCall, type ToolCallEvent, type ToolDefinition, type ToolSchema, type ToolSession, type ToolTraceEntry } from 'agent/sdk'

export interface OfferedTool {
  definition: ToolDefinition
  toolset: string
  owner: string
}

/**
 * How long a computed offer is reused. Which tools are registered and the tools.enabled /
 * tools.disabled lists are compared on every call (a reload or a config change is seen at once);
 * a tool's `available` reads settings and .env, which can change behind our back, so it is asked
 * again once the offer is this old (settings look at .env at most this often themselves). Asking
 * every tool on every run was about 3 % of an API request's CPU.
 */
export const OFFER_REUSE_MS = 100

interface Offer {
  entries: ReadonlyArray<{ value: ToolDefinition }>
  lists: string
  at: number
  tools: readonly OfferedTool[]
}
const offers = new WeakMap<ExtensionApi<any>, Map<string, Offer>>()

export function offeredTools(api: ExtensionApi<any>, options: OfferedToolsOptions = {}): readonly OfferedTool[] {
  const entries = api.tools.entries()
  const lists = JSON.stringify([api.settings.get('tools.enabled'), api.settings.get('tools.disabled')])
  const key = JSON.stringify([options.toolsets, options.enableTools, options.disableTools])
  let mine = offers.get(api)
  if (!mine) offers.set(api, (mine = new Map()))
  const now = Date.now()
  const last = mine.get(key)
  if (last && now - last.at < OFFER_REUSE_MS && last.lists === lists && sameEntries(last.entries, entries)) return last.tools
  const tools = Object.freeze(computeOffer(api, entries, options))
  mine.set(key, { entries, lists, at: now, tools })
  return tools
}

function sameEntries(a: ReadonlyArray<{ value: ToolDefinition }>, b: ReadonlyArray<{ value: ToolDefinition }>): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i]!.value !== b[i]!.value) return false
  return true
}

function computeOffer(api: ExtensionApi<any>, entries: ReadonlyArray<{ owner: string; value: ToolDefinition }>, options: OfferedToolsOptions): OfferedTool[] {
  const out: OfferedTool[] = []
  const only = options.toolsets?.length ? new Set(options.toolsets) : undefined
  const enable = new Set(options.enableTools ?? [])
  const disable = new Set(options.disableTools ?? [])
  // tools.enabled / tools.disabled read once per call, not once per registered tool.
  const read = new Map<string, unknown>()
  const settings = { get: <T>(key: string) => (read.has(key) ? read.get(key) : read.set(key, api.settings.get(key)).get(key)) as T | undefined }
  for (const { owner, value } of entries) {
    const toolset = value.toolset ?? owner
    if (only && !only.has(toolset) && !only.has(value.name)) continue
    if (disable.has(value.name) || disable.has(toolset)) continue
    const on = enable.has(value.name) || enable.has(toolset) || toolEnabled(value, settings, owner)
    if (!on) continue
    let available: true | string = true
    try {
      available = value.available ? value.available(api.settings) : true
    } catch (error) {
      available = errorMessage(error)
    }
    if (available !== true) continue
    out.push({ definition: value, toolset, owner })
  }
  return out.sort((a, b) => a.definition.name.localeCompare(b.definition.name))
}

// One schema object per definition (a reload registers new ones): providers keep their wire form
// per schema object, so the same objects on every run spare them serialising every tool each call.
const schemas = new WeakMap<ToolDefinition, ToolSchema>()

export function toolSchemas(tools: readonly OfferedTool[]): ToolSchema[] {
  return tools.map(({ definition }) => {
    let schema = schemas.get(definition)
    if (!schema) {
      schema = Object.freeze({ name: definition.name, description: definition.description, parameters: definition.parameters })
      schemas.set(definition, schema)
    }
    return schema
  })
}

// Serialised length of each tool's schema, per definition object (a reload registers new ones).
const schemaLengths = new WeakMap<ToolDefinition, number>()

/** Characters of the tools' JSON schemas: what they add to the prompt, for the token estimate. */
export function schemaChars(tools: readonly OfferedTool[]): number {
  let chars = 2
  for (const { definition } of tools) {
    let length = schemaLengths.get(definition)
    if (length === undefined) {
      length = JSON.stringify({ name: definition.name, description: definition.description, parameters: definition.parameters }).length + 1
      schemaLengths.set(definition, length)
    }
    chars += length
  }
  return chars
}

/** Gives every call of a batch a unique, non-empty id (mutating the calls, so the transcript pairs too). */
export function ensureCallIds(calls: ToolCall[], iteration: number): void {
  const seen = new Set<string>()
  calls.forEach((call, index) => {
    if (!call.id || seen.has(call.id)) call.id = `call_${iteration}_${index}_${Math.random().toString(36).slice(2, 8)}`
    seen.add(call.id)
  })
}

/** A tool's return value as the text the model reads. */
export function resultText(value: unknown): string {
  if (typeof value === 'string') return value
  if (isToolResultWithImages(value)) return value.text
  if (value === undefined || value === null) return ''
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

export function capResult(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  const head = Math.floor(maxChars * 0.8)
  const tail = maxChars - head
  return `${text.slice(0, head)}\n\n[… output truncated: ${text.length - maxChars} of ${text.length} characters left out …]\n\n${text.slice(text.length - tail)}`
}

export interface CallOutcome {
  call: ToolCall
  ok: boolean
  result: string
  /** Images a tool returned with its text (toolResult in the sdk), for the model. */
  images?: ToolResultWithImages['images']
  trace: ToolTraceEntry
}

/** A tool that ignores its abort signal must not hold an interrupted run forever. */
function untilAbortedPlusGrace<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    const onAbort = () => {
      timer = setTimeout(() => reject(new Error(`did not stop within ${graceMs} ms of the interrupt`)), graceMs)
      timer.unref?.()
    }
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    })
  })
}

export interface BatchContext {
  api: ExtensionApi<any>
  /** How long a tool may take to stop after an interrupt before the run moves on without it. */
  abortGraceMs: number
  tools: readonly OfferedTool[]
  session: ToolSession
  signal: AbortSignal
  maxResultChars: number
  /** Replaces known secrets (throws when they cannot be read: the result is then withheld). */
  redact(text: string): string
  emit(event: RunEvent): void
  observe(event: Record<string, unknown> & { type: string }): void
}

function parseInput(text: string): { input?: unknown; error?: string } {
  if (!text || !text.trim()) return { input: {} }
  try {
    const value = JSON.parse(text)
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'the arguments must be a JSON object' }
    return { input: value }
  } catch (error) {
    return { error: `the arguments are not valid JSON (${errorMessage(error)})` }
  }
}

/** One tool call in its span (GenAI conventions' `execute_tool`). */
function tracedRunOne(call: ToolCall, ctx: BatchContext): Promise<CallOutcome> {
  const name = shownName(call.name, ctx)
  const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': call.id }
  return withSpan(ctx.api.services, `execute_tool ${name}`, { attributes }, async (span) => {
    const outcome = await runOne(call, name, ctx)
    if (!outcome.ok) span.fail('the tool call failed')
    return outcome
  })
}

/** `name`: the call's tool name as shown outside the run (shownName). */
async function runOne(call: ToolCall, name: string, ctx: BatchContext): Promise<CallOutcome> {
  const offered = ctx.tools.find((t) => t.definition.name === call.name)
  const argsBytes = Buffer.byteLength(call.arguments ?? '')
  const parsed = parseInput(call.arguments)
  // Every consumer of the event (the CLI's --json, an editor, the API stream, delegation) shows the
  // name and arguments without known secrets; the tool and the guards get them as the model sent them.
  ctx.emit({ type: 'tool.start', callId: call.id, name, input: shownInput(parsed.input ?? call.arguments, ctx) })
  let ok = false
  let text: string
  let images: ToolResultWithImages['images'] | undefined
  if (!offered) {
    text = `Error: there is no tool "${call.name}". Available tools: ${ctx.tools.map((t) => t.definition.name).join(', ') || 'none'}.`
  } else if (parsed.error) {
    text = `Error: ${call.name}: ${parsed.error}.`
  } else {
    const session: ToolSession = {
      ...ctx.session,
      // Redacted first, then bounded: a cut before would leave the part of a secret that crosses it.
      progress: (line: string) => ctx.emit({ type: 'tool.progress', callId: call.id, name, text: capProgress(withheld(String(line), ctx)) }),
      plan: (entries) => ctx.emit({ type: 'plan', callId: call.id, entries: entries.map((entry) => ({ ...entry, content: withheld(entry.content, ctx) })) }),
    }
    const event: ToolCallEvent = { tool: call.name, toolset: offered.toolset, callId: call.id, input: parsed.input, session, modifiesFiles: offered.definition.modifiesFiles === true, signal: ctx.signal }
    const outcome = await guardedExecute(offered.definition, event, ctx)
    ok = outcome.ok
    text = outcome.result
    images = outcome.images
  }
  if (ctx.signal.aborted && !ok) text = text || 'Interrupted: the run was stopped before this tool finished.'
  // After every tap and before the cap (a cut could leave half a secret): nothing can skip this step.
  const redacted = withheld(text, ctx)
  if (redacted !== text && redacted.startsWith('Error: output withheld')) ok = false
  const result = capResult(redacted, ctx.maxResultChars)
  const resultBytes = Buffer.byteLength(result)
  ctx.emit({ type: 'tool.end', callId: call.id, name, ok, resultBytes, result })
  ctx.observe({ type: 'tool.call', tool: name, callId: call.id, ok, argsBytes, resultBytes })
  return { call, ok, result, ...(ok && images ? { images } : {}), trace: { tool: name, callId: call.id, argsBytes, resultBytes, status: ok ? 'ok' : 'error' } }
}

/** A call's arguments as shown outside the tool: without known secrets; when they cannot be read, nothing of them. */
function shownInput(input: unknown, ctx: BatchContext): unknown {
  try {
    return redactDeep(input, ctx.redact)
  } catch (error) {
    return `(arguments withheld: the known secrets could not be read to redact them (${errorMessage(error)}))`
  }
}

/**
 * A call's tool name as shown outside the run (events, the trace, spans, metrics): the model chooses
 * it (`no_such_tool_<secret>`), so it is redacted like the arguments, and withheld when the known
 * secrets cannot be read.
 */
function shownName(name: string, ctx: BatchContext): string {
  try {
    return ctx.redact(name)
  } catch {
    return '(tool name withheld: the known secrets could not be read)'
  }
}

/** Characters shown of one progress line (a tool sends whole lines; a long one is cut here, once redacted). */
export const PROGRESS_LINE_CHARS = 400

/** Each line of a (redacted) progress text bounded to PROGRESS_LINE_CHARS. */
export function capProgress(text: string): string {
  if (text.length <= PROGRESS_LINE_CHARS) return text
  return text
    .split('\n')
    .map((line) => (line.length > PROGRESS_LINE_CHARS ? `${line.slice(0, PROGRESS_LINE_CHARS - 1)}…` : line))
    .join('\n')
}

/** `text` without known secrets; when they cannot be read, nothing of it (fail closed). */
function withheld(text: string, ctx: BatchContext): string {
  try {
    return ctx.redact(text)
  } catch (error) {
    return `Error: output withheld: the known secrets could not be read to redact it (${errorMessage(error)}).`
  }
}

/** beforeToolCall → execute → afterToolCall. Never throws: every failure becomes text for the model. */
async function guardedExecute(tool: ToolDefinition, event: ToolCallEvent, ctx: BatchContext): Promise<{ ok: boolean; result: string; images?: ToolResultWithImages['images'] }> {
  try {
    const verdict = await ctx.api.hooks.beforeToolCall.promise(event)
    if (verdict && (verdict as { block?: unknown }).block) {
      const reason = String((verdict as { reason?: unknown }).reason ?? 'no reason given')
      ctx.observe({ type: 'tool.blocked', tool: event.tool, callId: event.callId, reason })
      return { ok: false, result: `Blocked: ${event.tool} was not run: ${reason}` }
    }
  } catch (error) {
    // A guard that fails must not let the call through.
    ctx.observe({ type: 'tool.blocked', tool: event.tool, callId: event.callId, reason: errorMessage(error) })
    return { ok: false, result: `Blocked: ${event.tool} was not run because a safety check failed: ${errorMessage(error)}` }
  }
  if (ctx.signal.aborted) return { ok: false, result: 'Interrupted: the run was stopped before this tool started.' }
  let outcome: { ok: boolean; result: string; images?: ToolResultWithImages['images'] }
  try {
    const running = Promise.resolve().then(() => tool.execute({ input: event.input, callId: event.callId, signal: ctx.signal, session: event.session }))
    const value = await untilAbortedPlusGrace(running, ctx.signal, ctx.abortGraceMs)
    outcome = { ok: true, result: resultText(value), ...(isToolResultWithImages(value) && value.images.length ? { images: value.images } : {}) }
  } catch (error) {
    outcome = ctx.signal.aborted
      ? { ok: false, result: `Interrupted: ${event.tool} was stopped (${errorMessage(error)})` }
      : { ok: false, result: `Error: ${event.tool}: ${errorMessage(error)}` }
  }
  try {
    const after = await ctx.api.hooks.afterToolCall.promise(outcome, event)
    if (after && typeof after.result === 'string') outcome = { ok: Boolean(after.ok), result: after.result, ...(after.ok && outcome.images ? { images: outcome.images } : {}) }
  } catch (error) {
    ctx.api.log.warn(`afterToolCall failed for ${event.tool}: ${errorMessage(error)}`)
  }
  return outcome
}

/** Runs a batch; outcomes come back in the order of the calls. */
export async function runBatch(calls: readonly ToolCall[], ctx: BatchContext): Promise<CallOutcome[]> {
  const modifies = (call: ToolCall) => ctx.tools.find((t) => t.definition.name === call.name)?.definition.modifiesFiles === true
  const outcomes = new Array<CallOutcome>(calls.length)
  let chain = Promise.resolve()
  const parallel: Promise<void>[] = []
  calls.forEach((call, index) => {
    if (modifies(call)) {
      chain = chain.then(async () => {
        outcomes[index] = await tracedRunOne(call, ctx)
      })
    } else {
      parallel.push(tracedRunOne(call, ctx).then((o) => void (outcomes[index] = o)))
    }
  })
  await Promise.all([chain, ...parallel])
  return outcomes
}
