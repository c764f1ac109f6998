// How a conversation appears in the output region: the user's line, streamed answer text (rendered
// as markdown, see markdown.ts), reasoning (when shown) and the end of a turn (interrupted,
// iteration cap, one-line errors). Tool calls are tool-activity.ts's.

import { errorMessage, terminalSafe, type BackgroundTask, type RunEvent, type RunResult } from 'agent/sdk'
import { loadMarkdown, markdownRenderer } from './markdown.ts'
import type { Block, Screen } from './screen.ts'
import { stripAnsi, type Theme } from './theme.ts'

/** An answer shown as it streams: its markdown source, rendered again as it grows. */
interface Answer {
  source: string
  final: boolean
  block: Block
}

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
  private answer: Answer | undefined
  private markdown: 'idle' | 'loading' | 'ready' | 'failed' = 'idle'

  constructor(
    private readonly screen: Screen,
    private readonly theme: Theme,
    private readonly showReasoning: () => boolean,
  ) {}

  /** Starts loading the markdown renderer (first turn); answers shown before it is ready are re-rendered then. */
  private loadMarkdown(): void {
    if (this.markdown !== 'idle') return
    this.markdown = 'loading'
    loadMarkdown(this.theme.mode).then(
      () => {
        this.markdown = 'ready'
        this.screen.refresh()
      },
      (error) => {
        this.markdown = 'failed'
        this.line(this.theme.warn(`markdown rendering is off: ${errorMessage(error)}`))
      },
    )
  }

  private render(answer: Answer, columns: number): string {
    const renderer = markdownRenderer(this.theme.mode)
    if (!renderer) return answer.source
    try {
      const text = renderer.render(answer.source, answer.final, columns)
      return this.theme.color ? text : stripAnsi(text)
    } catch {
      return answer.source
    }
  }

  /** A new answer block (markdown), starting on a fresh line. */
  private startAnswer(text: string, final: boolean): Answer {
    this.loadMarkdown()
    const answer: Answer = { source: terminalSafe(text), final, block: undefined as unknown as Block }
    answer.block = this.screen.block((columns) => this.render(answer, columns))
    this.atLineStart = true
    return answer
  }

  /** The streamed answer is complete: render it whole (code highlighted). */
  private closeAnswer(): void {
    const answer = this.answer
    if (!answer) return
    this.answer = undefined
    answer.final = true
    answer.block.update()
  }

  private write(text: string): void {
    if (!text) return
    this.closeAnswer()
    this.screen.print(text)
    this.atLineStart = text.endsWith('\n')
  }

  /** Whole lines, starting on a fresh line. */
  line(text: string): void {
    if (!this.atLineStart) this.write('\n')
    this.write(`${text}\n`)
    this.mode = 'none'
  }

  /** Text that may be markdown (an answer), rendered. */
  markdownText(text: string): void {
    this.closeAnswer()
    this.startAnswer(text, true)
    this.mode = 'none'
  }

  blank(): void {
    this.line('')
  }

  user(prompt: string): void {
    const [first, ...rest] = prompt.split('\n')
    this.line(`${this.theme.prompt('›')} ${this.theme.bold(first ?? '')}${rest.map((r) => `\n  ${this.theme.bold(r)}`).join('')}`)
    this.streamed = false
    this.loadMarkdown()
  }

  event(event: RunEvent): void {
    switch (event.type) {
      case 'delta':
        this.streamed = true
        if (this.mode !== 'text' || !this.answer) {
          this.closeAnswer()
          this.answer = this.startAnswer(event.text, false)
          this.mode = 'text'
          return
        }
        this.answer.source += terminalSafe(event.text)
        this.answer.block.update()
        return
      case 'reasoning':
        if (!this.showReasoning()) return
        if (this.mode !== 'reasoning') {
          if (!this.atLineStart) this.write('\n')
          this.write(this.theme.dim('thinking: '))
          this.mode = 'reasoning'
        }
        this.write(this.theme.reasoning(terminalSafe(event.text)))
        return
      case 'compressed':
        this.line(this.theme.dim(`(context compressed; continuing in session ${event.sessionId})`))
        return
      default:
        return
    }
  }

  end(result: RunResult | undefined, error: unknown, stoppedByUser = true): void {
    this.closeAnswer()
    if (error) {
      this.line(this.theme.error(`✗ ${errorMessage(error)}`))
    } else if (result) {
      if (!this.streamed && result.answer) this.markdownText(result.answer)
      if (result.exitReason === 'interrupted') this.line(this.theme.dim(stoppedByUser ? '⏹ interrupted' : '⏹ interrupted (not by you: the agent was reloaded or is shutting down); send it again to retry'))
      if (result.exitReason === 'max_iterations') this.line(this.theme.warn(`stopped after ${result.apiCalls} model calls (iteration cap); say "continue" to go on`))
    }
    this.blank()
  }

  background(task: BackgroundTask): void {
    const seconds = task.endedAt ? Math.round((task.endedAt - task.startedAt) / 1000) : 0
    const head = `── background ${task.id} ${task.status} (${seconds}s): ${preview(task.prompt, 50)} ──`
    this.line(this.theme.accent(head))
    if (task.status === 'done') this.markdownText(task.answer ?? '')
    else this.line(task.error ? this.theme.error(`✗ ${task.error}`) : this.theme.dim('(stopped)'))
    this.line(this.theme.accent('─'.repeat(Math.min(40, head.length))))
    this.blank()
  }
}
