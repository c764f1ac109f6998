// Questions a tool asks in the interactive chat (an MCP server's elicitation): the sdk's
// ElicitationForm asks the fields one at a time in the transcript and each line the user submits
// answers the current one (a bad answer asks again; `/decline`, `/cancel` refuse). Forms wait their
// turn; leaving the chat cancels whatever still waits.

import { ElicitationForm, type ElicitationAnswer, type ElicitationPrompt } from 'agent/sdk'

export class ElicitationQuestions {
  private readonly queue: Array<{ form: ElicitationForm; resolve(answer: ElicitationAnswer): void }> = []

  constructor(private readonly show: (lines: string[]) => void) {}

  /** The prompt handed to runs as `RunRequest.extra.elicitationPrompt`. */
  readonly prompt: ElicitationPrompt = (request) =>
    new Promise<ElicitationAnswer>((resolve) => {
      this.queue.push({ form: new ElicitationForm(request), resolve })
      if (this.queue.length === 1) this.open()
    })

  /** True while a form waits for the user's next line. */
  get pending(): boolean {
    return this.queue.length > 0
  }

  private open(): void {
    const next = this.queue[0]
    if (next) this.show(next.form.intro().map((line, i) => (i === 0 ? line : `  ${line}`)))
  }

  /** Answers the current question with a submitted line; returns a note for the transcript ('' while the form goes on). */
  answer(line: string): string {
    const current = this.queue[0]
    if (!current) return ''
    const step = current.form.answer(line)
    if (!('done' in step)) {
      this.show([`  ${'ask' in step ? step.ask : step.again}`])
      return ''
    }
    this.queue.shift()
    current.resolve(step.done)
    this.open()
    const { action } = step.done
    return action === 'accept' ? (current.form.request.fields.length ? '✓ sent' : '✓ accepted') : action === 'decline' ? '✗ declined' : '✗ cancelled'
  }

  /** Leaving the chat cancels every form that waits. */
  cancelAll(): void {
    for (const { resolve } of this.queue.splice(0)) resolve({ action: 'cancel' })
  }
}
