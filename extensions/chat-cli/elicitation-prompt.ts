// Questions a tool asks in the interactive chat (an MCP server's elicitation): the form's fields are
// asked one at a time in the transcript and each line the user submits answers the current one
// (checked by the sdk's parseElicitationValue; a bad answer asks again). `/decline` and `/cancel`
// end the form; leaving the chat cancels whatever still waits.

import { parseElicitationValue, type ElicitationAnswer, type ElicitationField, type ElicitationPrompt, type ElicitationRequest, type ElicitationValue } from 'agent/sdk'

interface Form {
  request: ElicitationRequest
  resolve(answer: ElicitationAnswer): void
  index: number
  content: Record<string, ElicitationValue>
}

function question(field: ElicitationField): string {
  const choices = field.choices ? ` [${field.choices.map((c, i) => `${i + 1}) ${c.label}`).join('  ')}]${field.type === 'array' ? ' (comma-separated)' : ''}` : ''
  const kind = field.type === 'boolean' ? ' (y/n)' : ''
  const fallback = field.default !== undefined ? ` (Enter: ${Array.isArray(field.default) ? field.default.join(', ') : String(field.default)})` : field.required ? '' : ' (Enter: skip)'
  return `  ${field.title}${field.description ? ` — ${field.description}` : ''}${choices}${kind}${fallback}:`
}

export class ElicitationQuestions {
  private readonly queue: Form[] = []

  constructor(private readonly show: (lines: string[]) => void) {}

  /** The prompt handed to runs as `RunRequest.extra.elicitationPrompt`. */
  readonly prompt: ElicitationPrompt = (request) =>
    new Promise<ElicitationAnswer>((resolve) => {
      this.queue.push({ request, resolve, index: 0, content: {} })
      if (this.queue.length === 1) this.open()
    })

  /** True while a form waits for the user's next line. */
  get pending(): boolean {
    return this.queue.length > 0
  }

  private open(): void {
    const form = this.queue[0]
    if (!form) return
    const { request } = form
    this.show([`? ${request.from} asks: ${request.message}`, '  (answer each line; /decline or /cancel to refuse)', request.fields.length ? question(request.fields[0]!) : '  y to accept, anything else declines:'])
  }

  private finish(answer: ElicitationAnswer): void {
    this.queue.shift()?.resolve(answer)
    this.open()
  }

  /** Answers the current field with a submitted line; returns a note for the transcript. */
  answer(line: string): string {
    const form = this.queue[0]
    if (!form) return ''
    const text = line.trim()
    if (text === '/decline' || text === '/cancel') {
      const declined = text === '/decline'
      this.finish({ action: declined ? 'decline' : 'cancel' })
      return declined ? '✗ declined' : '✗ cancelled'
    }
    const fields = form.request.fields
    if (fields.length === 0) {
      const yes = /^(y|yes)$/i.test(text)
      this.finish(yes ? { action: 'accept', content: {} } : { action: 'decline' })
      return yes ? '✓ accepted' : '✗ declined'
    }
    const field = fields[form.index]!
    const parsed = parseElicitationValue(field, text)
    if ('error' in parsed) {
      this.show([`  ${parsed.error}`, question(field)])
      return ''
    }
    if (parsed.value !== undefined) form.content[field.name] = parsed.value
    form.index++
    if (form.index < fields.length) {
      this.show([question(fields[form.index]!)])
      return ''
    }
    this.finish({ action: 'accept', content: form.content })
    return '✓ sent'
  }

  /** Leaving the chat cancels every form that waits. */
  cancelAll(): void {
    for (const form of this.queue.splice(0)) form.resolve({ action: 'cancel' })
  }
}
