// How a conversation appears in the output region: the user's line, streamed answer text, reasoning
// (when shown) and the end of a turn (interrupted, iteration cap, one-line errors). Tool calls are
// tool-activity.ts's.

import { errorMessage, type BackgroundTask, type RunEvent, type RunResult } from 'agent/sdk'
import type { Screen } from './screen.ts'
import type { Theme } from './theme.ts'

const preview = (value: unknown, max = 60): string => {
  let text: string
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value)
  } catch {
    text = String(value)
  }
  text = (text ?? '').replace(/\s+/g, ' ')
  return text.length > max ? text.slice(0, max - 1) + '…' : text
}

export class Transcript {
  /** Whether the output cursor is at the start of a line. */
  private atLineStart = true
  private mode: 'none' | 'text' | 'reasoning' = 'none'
  private streamed = false

  constructor(
    private readonly screen: Screen,
    private readonly theme: Theme,
    private readonly showReasoning: () => boolean,
  ) {}

  private write(text: string): void {
    if (!text) return
    this.screen.print(text)
    this.atLineStart = text.endsWith('\n')
  }

  /** Whole lines, starting on a fresh line. */
  line(text: string): void {
    if (!this.atLineStart) this.write('\n')
    this.write(`${text}\n`)
    this.mode = 'none'
  }

  blank(): void {
    this.line('')
  }

  user(prompt: string): void {
    const [first, ...rest] = prompt.split('\n')
    this.line(`${this.theme.prompt('›')} ${this.theme.bold(first ?? '')}${rest.map((r) => `\n  ${this.theme.bold(r)}`).join('')}`)
    this.streamed = false
  }

  event(event: RunEvent): void {
    switch (event.type) {
      case 'delta':
        if (this.mode !== 'text') {
          if (!this.atLineStart) this.write('\n')
          this.mode = 'text'
        }
        this.streamed = true
        this.write(event.text)
        return
      case 'reasoning':
        if (!this.showReasoning()) return
        if (this.mode !== 'reasoning') {
          if (!this.atLineStart) this.write('\n')
          this.write(this.theme.dim('thinking: '))
          this.mode = 'reasoning'
        }
        this.write(this.theme.reasoning(event.text))
        return
      case 'compressed':
        this.line(this.theme.dim(`(context compressed; continuing in session ${event.sessionId})`))
        return
      default:
        return
    }
  }

  end(result: RunResult | undefined, error: unknown, stoppedByUser = true): void {
    if (error) {
      this.line(this.theme.error(`✗ ${errorMessage(error)}`))
    } else if (result) {
      if (!this.streamed && result.answer) this.line(result.answer)
      if (result.exitReason === 'interrupted') this.line(this.theme.dim(stoppedByUser ? '⏹ interrupted' : '⏹ interrupted (not by you: the agent was reloaded or is shutting down); send it again to retry'))
      if (result.exitReason === 'max_iterations') this.line(this.theme.warn(`stopped after ${result.apiCalls} model calls (iteration cap); say "continue" to go on`))
    }
    this.blank()
  }

  background(task: BackgroundTask): void {
    const seconds = task.endedAt ? Math.round((task.endedAt - task.startedAt) / 1000) : 0
    const head = `── background ${task.id} ${task.status} (${seconds}s): ${preview(task.prompt, 50)} ──`
    const body = task.status === 'done' ? (task.answer ?? '') : task.error ? this.theme.error(`✗ ${task.error}`) : this.theme.dim('(stopped)')
    this.line(`${this.theme.accent(head)}\n${body}\n${this.theme.accent('─'.repeat(Math.min(40, head.length)))}`)
    this.blank()
  }
}
