// Questions a tool asks the person in the conversation while it runs (an MCP server's elicitation):
// the form as plain fields, and how a typed answer becomes a value. A surface that can ask passes an
// ElicitationPrompt as `RunRequest.extra.elicitationPrompt`; where none is passed no one is asked.

export interface ElicitationChoice {
  value: string
  label: string
}

export interface ElicitationField {
  name: string
  title: string
  description?: string
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array'
  /** One of these (string), or several (array). */
  choices?: ElicitationChoice[]
  required: boolean
  default?: string | number | boolean | string[]
  minimum?: number
  maximum?: number
}

export interface ElicitationRequest {
  /** Who asks (e.g. `MCP server "files"`). */
  from: string
  message: string
  fields: ElicitationField[]
}

export type ElicitationValue = string | number | boolean | string[]

export type ElicitationAnswer = { action: 'accept'; content: Record<string, ElicitationValue> } | { action: 'decline' } | { action: 'cancel' }

export type ElicitationPrompt = (request: ElicitationRequest) => Promise<ElicitationAnswer>

/** One line of a person's answer for a field: the value, `undefined` for "left empty", or why it is not one. */
export function parseElicitationValue(field: ElicitationField, text: string): { value: ElicitationValue | undefined } | { error: string } {
  const raw = text.trim()
  if (!raw) {
    if (field.default !== undefined) return { value: field.default }
    return field.required ? { error: `${field.title} is required` } : { value: undefined }
  }
  const pick = (word: string) => field.choices!.find((c) => c.value === word || c.label.toLowerCase() === word.toLowerCase() || String(field.choices!.indexOf(c) + 1) === word)?.value
  if (field.type === 'array') {
    const picked = raw.split(',').map((w) => w.trim()).filter(Boolean).map((w) => (field.choices ? pick(w) : w))
    if (picked.some((v) => v === undefined)) return { error: `choose from ${field.choices!.map((c) => c.label).join(', ')} (comma-separated)` }
    return { value: picked as string[] }
  }
  if (field.choices) {
    const value = pick(raw)
    return value === undefined ? { error: `choose one of ${field.choices.map((c, i) => `${i + 1}) ${c.label}`).join(', ')}` } : { value }
  }
  if (field.type === 'boolean') {
    if (/^(y|yes|true|1)$/i.test(raw)) return { value: true }
    if (/^(n|no|false|0)$/i.test(raw)) return { value: false }
    return { error: 'answer yes or no' }
  }
  if (field.type === 'number' || field.type === 'integer') {
    const n = Number(raw)
    if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return { error: `${field.title} must be ${field.type === 'integer' ? 'a whole number' : 'a number'}` }
    if ((field.minimum !== undefined && n < field.minimum) || (field.maximum !== undefined && n > field.maximum)) return { error: `${field.title} must be between ${field.minimum ?? '-∞'} and ${field.maximum ?? '∞'}` }
    return { value: n }
  }
  return { value: raw }
}

function question(field: ElicitationField): string {
  const choices = field.choices ? ` [${field.choices.map((c, i) => `${i + 1}) ${c.label}`).join('  ')}]${field.type === 'array' ? ' (comma-separated)' : ''}` : ''
  const kind = field.type === 'boolean' ? ' (y/n)' : ''
  const fallback = field.default !== undefined ? ` (Enter: ${Array.isArray(field.default) ? field.default.join(', ') : String(field.default)})` : field.required ? '' : ' (Enter: skip)'
  return `${field.title}${field.description ? ` — ${field.description}` : ''}${choices}${kind}${fallback}:`
}

/**
 * A form asked one field at a time, for surfaces where each line a person sends answers the
 * current question: an empty line or `-` takes the default (or skips an optional field), `/decline`
 * and `/cancel` refuse; a form without fields is a yes/no confirmation.
 */
export class ElicitationForm {
  private index = 0
  private readonly content: Record<string, ElicitationValue> = {}

  constructor(readonly request: ElicitationRequest) {}

  /** The opening lines: who asks, what, how to refuse, and the first question. */
  intro(): string[] {
    return [`? ${this.request.from} asks: ${this.request.message}`, '(answer each question; - takes the default or skips; /decline or /cancel to refuse)', this.question()]
  }

  question(): string {
    const field = this.request.fields[this.index]
    return field ? question(field) : 'y to accept, anything else declines:'
  }

  /** Takes one line: the next question (`ask`), the same again with the reason (`again`), or the answer (`done`). */
  answer(line: string): { ask: string } | { again: string } | { done: ElicitationAnswer } {
    // `-` is an empty answer where a surface cannot send an empty line (a chat message).
    const text = line.trim() === '-' ? '' : line.trim()
    if (text === '/decline') return { done: { action: 'decline' } }
    if (text === '/cancel') return { done: { action: 'cancel' } }
    const fields = this.request.fields
    if (fields.length === 0) return { done: /^(y|yes)$/i.test(text) ? { action: 'accept', content: {} } : { action: 'decline' } }
    const field = fields[this.index]!
    const parsed = parseElicitationValue(field, text)
    if ('error' in parsed) return { again: `${parsed.error}. ${this.question()}` }
    if (parsed.value !== undefined) this.content[field.name] = parsed.value
    this.index++
    return this.index < fields.length ? { ask: this.question() } : { done: { action: 'accept', content: { ...this.content } } }
  }
}
