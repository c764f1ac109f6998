// The optional parts of a chat-completions or responses request beyond the conversation: client
// (function) tools and `tool_choice`, sampling and output parameters (forwarded to the provider),
// structured output (`response_format` / `text.format`), `n` and `metadata`. Parsed strictly: a bad
// value is a 400 naming the field. A request using none of them pays a few property reads.

import { createHash } from 'node:crypto'
import { HttpError, type ResponseFormat, type SamplingOptions, type ToolChoice, type ToolSchema } from 'agent/sdk'
import { badRequest } from './messages.ts'
import { schemaChecker, type CheckOutcome, type PreparedSchema } from './schema-check.ts'

export interface RequestOptions {
  clientTools?: ToolSchema[]
  toolChoice?: ToolChoice
  sampling?: SamplingOptions
  metadata?: Record<string, string>
}

type Shape = 'chat' | 'responses'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

function tool(value: unknown, where: string, shape: Shape): ToolSchema {
  if (!isObject(value) || value.type !== 'function') throw badRequest('Only function tools are supported', `${where}.type`, 'unsupported_tool')
  // Chat nests the function; responses flattens it.
  const fn = shape === 'chat' ? value.function : value
  if (!isObject(fn)) throw badRequest('A function tool needs a "function" object', `${where}.function`, 'invalid_tool')
  const at = shape === 'chat' ? `${where}.function` : where
  if (typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) throw badRequest('A tool name must be 1-64 letters, digits, "_" or "-"', `${at}.name`, 'invalid_tool')
  if (fn.description !== undefined && fn.description !== null && typeof fn.description !== 'string') throw badRequest('A tool description must be a string', `${at}.description`, 'invalid_tool')
  if (fn.parameters !== undefined && fn.parameters !== null && !isObject(fn.parameters)) throw badRequest('Tool parameters must be a JSON Schema object', `${at}.parameters`, 'invalid_tool')
  return { name: fn.name, description: typeof fn.description === 'string' ? fn.description : '', parameters: isObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} } }
}

function toolChoice(value: unknown, shape: Shape, tools: ToolSchema[] | undefined): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined
  if (value === 'none' || value === 'auto' || value === 'required') {
    if (value === 'required' && !tools?.length) throw badRequest('"tool_choice": "required" needs client tools in "tools"', 'tool_choice', 'invalid_tool_choice')
    return value
  }
  const name = isObject(value) && value.type === 'function' ? (shape === 'chat' && isObject(value.function) ? value.function.name : value.name) : undefined
  if (typeof name !== 'string') throw badRequest('"tool_choice" must be "none", "auto", "required" or a function', 'tool_choice', 'invalid_tool_choice')
  if (!tools?.some((t) => t.name === name)) throw badRequest(`"tool_choice" names "${name}", which is not in "tools"`, 'tool_choice', 'invalid_tool_choice')
  return { name }
}

function number(body: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) throw badRequest(`"${key}" must be a number from ${min} to ${max}`, key, 'invalid_value')
  return value
}

function positiveInteger(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw badRequest(`"${key}" must be a positive integer`, key, 'invalid_value')
  return value as number
}

function stop(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list) || list.length > 4 || list.some((s) => typeof s !== 'string' || s === '')) throw badRequest('"stop" must be a string or up to 4 non-empty strings', 'stop', 'invalid_value')
  return list.length ? (list as string[]) : undefined
}

/** `response_format` (chat: json_schema nested) or `text.format` (responses: flat). */
function responseFormat(value: unknown, param: string, shape: Shape): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw badRequest(`"${param}" must be an object`, param, 'invalid_response_format')
  if (value.type === 'text' || value.type === 'json_object') return { type: value.type }
  if (value.type !== 'json_schema') throw badRequest(`"${param}.type" must be text, json_object or json_schema`, `${param}.type`, 'invalid_response_format')
  const spec = shape === 'chat' ? value.json_schema : value
  const at = shape === 'chat' ? `${param}.json_schema` : param
  if (!isObject(spec)) throw badRequest(`"${at}" must be an object`, at, 'invalid_response_format')
  if (typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name)) throw badRequest('A schema name must be 1-64 letters, digits, "_" or "-"', `${at}.name`, 'invalid_response_format')
  if (!isObject(spec.schema)) throw badRequest('"schema" must be a JSON Schema object', `${at}.schema`, 'invalid_response_format')
  const format: ResponseFormat = {
    type: 'json_schema',
    name: spec.name,
    schema: spec.schema,
    ...(typeof spec.strict === 'boolean' ? { strict: spec.strict } : {}),
    ...(typeof spec.description === 'string' ? { description: spec.description } : {}),
  }
  prepare(format, `${at}.schema`)
  return format
}

/**
 * The largest schema accepted, in characters of its JSON text: past it, 400 `schema_too_large`.
 * OpenAI documents no size of its own, only limits of content (5,000 object properties, 10 levels of
 * nesting, 1,000 enum values, 120,000 characters of property names, definition names, enum and
 * const values together): a schema at those limits, with descriptions, is above 120,000 characters,
 * so the cap sits at twice that. It bounds what compiling and caching one schema costs.
 */
export const MAX_SCHEMA_CHARS = 256 * 1024

/** Each json_schema format of a request, serialised once: its text, hash and where it was given. */
const prepared = new WeakMap<ResponseFormat, PreparedSchema & { param: string }>()

function prepare(format: ResponseFormat & { type: 'json_schema' }, param: string): PreparedSchema & { param: string } {
  const text = JSON.stringify(format.schema)
  if (text.length > MAX_SCHEMA_CHARS) {
    throw badRequest(`The schema "${format.name}" is ${text.length} characters of JSON; at most ${MAX_SCHEMA_CHARS} are accepted`, param, 'schema_too_large')
  }
  const entry = { text, key: createHash('sha256').update(text).digest('base64url'), param }
  prepared.set(format, entry)
  return entry
}

function metadata(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw badRequest('"metadata" must be an object of strings', 'metadata', 'invalid_metadata')
  const entries = Object.entries(value)
  if (entries.length > 16) throw badRequest('"metadata" holds at most 16 keys', 'metadata', 'invalid_metadata')
  for (const [key, v] of entries) {
    if (key.length > 64 || typeof v !== 'string' || v.length > 512) throw badRequest('"metadata" keys are at most 64 characters, values strings of at most 512', `metadata.${key}`, 'invalid_metadata')
  }
  return value as Record<string, string>
}

/**
 * Reads the options of a request body. `agentTools` lists the names of the agent's own tools (only
 * asked when the request carries tools): a client tool with one of those names is refused (400
 * `tool_name_conflict`), since the model could not tell the two apart.
 */
export function parseRequestOptions(body: Record<string, unknown>, shape: Shape, agentTools: () => Iterable<string>): RequestOptions {
  const out: RequestOptions = {}
  const n = body.n
  if (n !== undefined && n !== null && n !== 1) throw badRequest('Only "n": 1 is supported', 'n', 'unsupported_parameter')

  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw badRequest('"tools" must be a list', 'tools', 'invalid_tool')
    const tools = body.tools.map((t, i) => tool(t, `tools[${i}]`, shape))
    const names = new Set<string>()
    for (const [i, t] of tools.entries()) {
      if (names.has(t.name)) throw badRequest(`Tool "${t.name}" is listed twice`, `tools[${i}]`, 'invalid_tool')
      names.add(t.name)
    }
    if (tools.length) {
      for (const name of agentTools()) {
        if (names.has(name)) throw badRequest(`Tool "${name}" has the name of one of the agent's own tools; rename it`, 'tools', 'tool_name_conflict')
      }
      out.clientTools = tools
    }
  }
  const choice = toolChoice(body.tool_choice, shape, out.clientTools)
  if (choice !== undefined) out.toolChoice = choice

  const sampling: SamplingOptions = {}
  const temperature = number(body, 'temperature', 0, 2)
  if (temperature !== undefined) sampling.temperature = temperature
  const topP = number(body, 'top_p', 0, 1)
  if (topP !== undefined) sampling.topP = topP
  const maxTokens = shape === 'chat' ? (positiveInteger(body, 'max_completion_tokens') ?? positiveInteger(body, 'max_tokens')) : positiveInteger(body, 'max_output_tokens')
  if (maxTokens !== undefined) sampling.maxTokens = maxTokens
  if (shape === 'chat') {
    const stops = stop(body.stop)
    if (stops) sampling.stop = stops
  }
  const text = body.text
  if (shape === 'responses' && text !== undefined && text !== null && !isObject(text)) throw badRequest('"text" must be an object', 'text', 'invalid_value')
  const format = shape === 'chat' ? responseFormat(body.response_format, 'response_format', shape) : responseFormat(isObject(text) ? text.format : undefined, 'text.format', shape)
  if (format && format.type !== 'text') sampling.responseFormat = format
  if (Object.keys(sampling).length) out.sampling = sampling

  const meta = metadata(body.metadata)
  if (meta) out.metadata = meta
  return out
}

/**
 * Checks the request's json_schema before the model runs: a schema that cannot be used (does not
 * compile, a `$ref` that does not resolve, a reference cycle that no answer could end) is a 400
 * naming the problem. Undefined (nothing to wait for) when the request has no json_schema, so a
 * plain request pays one property read.
 */
export function schemaCheck(options: RequestOptions): Promise<void> | undefined {
  const format = options.sampling?.responseFormat
  if (format?.type !== 'json_schema') return undefined
  const schema = prepared.get(format) ?? prepare(format, 'response_format')
  return schemaChecker()
    .check(schema)
    .then((outcome) => verdict(outcome, format.name, schema.param))
}

/**
 * Checks a final answer against the requested structured output; throws a 500 that says what is
 * wrong when the model's answer is not valid JSON or does not match the schema (the model's fault),
 * a 400 when the schema is what fails (cannot be applied, or too expensive to check: the client's).
 * JSON mode is checked here; a json_schema in the checker's worker, never on the event loop.
 */
export async function checkStructuredAnswer(format: ResponseFormat | undefined, answer: string): Promise<void> {
  if (!format || format.type === 'text') return
  if (format.type === 'json_object') {
    let value: unknown
    try {
      value = JSON.parse(answer)
    } catch {
      throw invalidOutput('the answer is not valid JSON')
    }
    if (!isObject(value)) throw invalidOutput('the answer is not a JSON object')
    return
  }
  const schema = prepared.get(format) ?? prepare(format, 'response_format')
  verdict(await schemaChecker().validate(schema, answer), format.name, schema.param)
}

function verdict(outcome: CheckOutcome, name: string, param: string): void {
  switch (outcome.kind) {
    case 'ok':
      return
    case 'invalid':
      throw invalidOutput(outcome.why)
    case 'mismatch':
      throw invalidOutput(`the answer does not match the schema "${name}"${outcome.error ? ` (${outcome.where ?? ''}: ${outcome.error})` : ''}`)
    case 'schema':
      throw badRequest(`The schema "${name}" cannot be used: ${outcome.why}`, param, 'invalid_schema')
    case 'expensive': {
      const { deadlineMs, heapMb } = schemaChecker().limits
      const cost = outcome.reason === 'time' ? `checking took longer than ${deadlineMs} ms` : `checking needed more than ${heapMb} MiB`
      throw badRequest(`The schema "${name}" is too expensive to check: ${cost}. The usual cause is a "pattern" that backtracks (a repeated group holding a quantifier, such as (\\w+\\s?)+); simplify it`, param, 'schema_too_expensive')
    }
    case 'busy':
      throw new HttpError(503, 'Too many structured-output checks are waiting; retry shortly', { code: 'structured_output_busy', headers: { 'Retry-After': '1' } })
    case 'failed':
      throw new HttpError(500, `The structured output could not be checked: ${outcome.why}`, { code: 'structured_output_unavailable', type: 'server_error' })
  }
}

function invalidOutput(why: string): HttpError {
  return new HttpError(500, `The model's structured output is invalid: ${why}`, { code: 'invalid_structured_output', type: 'server_error' })
}
