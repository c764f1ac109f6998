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
