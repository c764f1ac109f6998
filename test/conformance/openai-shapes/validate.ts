// Validators over the vendored schemas (fixtures/openai-shapes.schema.json, see generate.ts): an
// answer or event is checked against the shape openai-node's types give it. The generated schemas
// are strict: required fields, enums and literal `type`s, and no property the type does not declare
// (additionalProperties false), so a misspelt or stray field fails too. The few fields this server
// adds on purpose are named in EXTENSIONS and taken out before validation, nothing else.

import { readFileSync } from 'node:fs'
import { Validator } from '@cfworker/json-schema'
import { FIXTURE } from './generate.ts'

export type Shape =
  | 'OpenAIChatCompletion'
  | 'OpenAIChatCompletionChunk'
  | 'OpenAIResponse'
  | 'OpenAIResponseStreamEvent'
  | 'OpenAIResponseItemList'
  | 'OpenAIModel'
  | 'OpenAIModelList'
  | 'OpenAIErrorEnvelope'

export const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { openaiNode: string; definitions: Record<string, unknown> }

/**
 * Fields the server adds beyond the schemas on purpose (documented in the api-server README):
 * `tool_progress` on the chunk of an `agent.tool.progress` event; `permission`, `root` and `parent`
 * on a model entry (the older models shape, which some frontends still read); `store` on a response
 * (OpenAI's own answers carry it, though its OpenAPI Response schema does not declare it), also
 * inside the stream events that carry the response.
 */
const MODEL_EXTRAS = ['permission', 'root', 'parent']
const RESPONSE_EXTRAS = ['store']

const drop = (value: unknown, names: string[]): unknown =>
  value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).filter(([key]) => !names.includes(key))) : value

const EXTENSIONS: Partial<Record<Shape, (value: any) => unknown>> = {
  OpenAIChatCompletionChunk: (chunk) => drop(chunk, ['tool_progress']),
  OpenAIModel: (model) => drop(model, MODEL_EXTRAS),
  OpenAIModelList: (list) => (Array.isArray(list?.data) ? { ...list, data: list.data.map((m: unknown) => drop(m, MODEL_EXTRAS)) } : list),
  OpenAIResponse: (response) => drop(response, RESPONSE_EXTRAS),
  OpenAIResponseStreamEvent: (event) => (event?.response ? { ...event, response: drop(event.response, RESPONSE_EXTRAS) } : event),
}

function withoutExtensions(shape: Shape, value: unknown): unknown {
  const strip = EXTENSIONS[shape]
  return strip && value && typeof value === 'object' ? strip(value) : value
}

const validators = new Map<string, Validator>()

/** The validator of a definition of the fixture (a shape, or one member of the stream event union). */
function validator(definition: string): Validator {
  let found = validators.get(definition)
  if (!found) {
    if (!fixture.definitions[definition]) throw new Error(`the fixture has no definition ${definition}: regenerate it (generate.ts)`)
    found = new Validator({ $ref: `#/definitions/${definition}`, definitions: fixture.definitions } as never, '7', false)
    validators.set(definition, found)
  }
  return found
}

/** Stream event type → the union member that declares it, so an event is held to its own schema. */
const eventDefinitions = new Map<string, string>()
for (const member of (fixture.definitions.ResponseStreamEvent as { anyOf: Array<{ $ref: string }> }).anyOf) {
  const name = member.$ref.replace('#/definitions/', '')
  const type = (fixture.definitions[name] as { properties?: { type?: { const?: string } } }).properties?.type?.const
  if (type) eventDefinitions.set(type, name)
}

/** What is wrong with `value` as `shape` (empty when it conforms); the server's named extensions are allowed. */
export function shapeErrors(shape: Shape, value: unknown): string[] {
  let definition: string = shape
  if (shape === 'OpenAIResponseStreamEvent') {
    const type = (value as { type?: unknown } | null)?.type
    const member = typeof type === 'string' ? eventDefinitions.get(type) : undefined
    if (!member) return [`# ${JSON.stringify(type)} is no event type of the API`]
    definition = member
  }
  const result = validator(definition).validate(withoutExtensions(shape, value))
  if (result.valid) return []
  // The innermost errors say what is wrong; the anyOf/$ref wrappers around them only repeat it.
  const errors = result.errors.filter((e) => !['$ref', 'anyOf', 'properties', 'items'].includes(e.keyword))
  return (errors.length ? errors : result.errors).slice(0, 8).map((e) => `${e.instanceLocation} ${e.error}`)
}
