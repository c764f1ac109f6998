// The interactive chat's running tools: a live block drawn above the input while calls run (a
// spinner, the tool name, the elapsed time, its arguments in full, wrapped, and the last lines of its
// output), and the line the transcript keeps of each call when it ends (arguments in full, duration),
// with the task list under it when the call changed the plan (the `todo` tool).

import { terminalSafe, type PlanEntry, type RunEvent } from 'agent/sdk'
import { describeArguments, describeCall, seconds } from './tool-calls.ts'
import { charWidth, truncate, type Theme } from './theme.ts'

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'
const FRAME_MS = 150
/** Output lines shown under the running call. */
const TAIL_LINES = 3

interface Running {
  name: string
  input: unknown
  startedAt: number
  tail: string[]
  /** The plan the call set (the `todo` tool), printed under its line when it ends. */
  plan?: string[]
}

const PLAN_MARKS: Record<PlanEntry['status'], string> = { pending: '☐', in_progress: '▸', completed: '☑' }

/** The plan as transcript rows, one per task. */
export function planLines(entries: readonly PlanEntry[]): string[] {
  return entries.length ? entries.map((e) => `  ${PLAN_MARKS[e.status]} ${terminalSafe(e.content)}`) : ['  (task list cleared)']
}

/** Breaks plain text into rows of at most `width` columns, at spaces where it can. */
export function wrapPlain(text: string, width: number): string[] {
  const rows: string[] = []
  for (const paragraph of text.split('\n')) {
    let row = ''
    let rowWidth = 0
    for (const word of paragraph.split(/(?<= )/)) {
      const w = [...word].reduce((sum, ch) => sum + charWidth(ch), 0)
      if (rowWidth + w > width && row) {
        rows.push(row.trimEnd())
        row = ''
        rowWidth = 0
      }
      for (const ch of word) {
        const cw = charWidth(ch)
        if (rowWidth + cw > width) {
          rows.push(row)
          row = ''
          rowWidth = 0
        }
        row += ch
        rowWidth += cw
      }
    }
    rows.push(row.trimEnd())
  }
  return rows
}

export class ToolActivity {
  private readonly running = new Map<string, Running>()
  private timer: NodeJS.Timeout | undefined
  private frame = 0

  constructor(
    /** Prints a whole line into the transcript. */
    private readonly print: (text: string) => void,
    private readonly theme: Theme,
    /** Draws the input area again (the live block is part of it). */
    private readonly redraw: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes the tool events of a run; false for the others (the transcript's). */
  event(event: RunEvent): boolean {
    switch (event.type) {
      case 'tool.start':
        this.running.set(event.callId, { name: event.name, input: event.input, startedAt: this.now(), tail: [] })
        this.tick()
        return true
      case 'tool.progress': {
        const call = this.running.get(event.callId)
        const lines = event.text.split(/\r?\n/).map((l) => terminalSafe(l).replace(/\t/g, '  ')).filter((l) => l.trim())
        // After its call ended (a background process's notification), output stays in the transcript.
        if (!call) for (const line of lines) this.print(this.theme.dim(`  │ ${line}`))
        else {
          call.tail.push(...lines)
          call.tail.splice(0, Math.max(0, call.tail.length - TAIL_LINES))
          this.redraw()
        }
        return true
      }
      case 'plan': {
        const call = this.running.get(event.callId)
        if (call) call.plan = planLines(event.entries)
        else for (const line of planLines(event.entries)) this.print(this.theme.dim(line))
        return true
      }
      case 'tool.end': {
        const call = this.running.get(event.callId)
        this.running.delete(event.callId)
        const took = call ? ` (${event.ok ? '' : 'failed, '}${seconds(this.now() - call.startedAt)})` : event.ok ? '' : ' (failed)'
        const text = `${event.ok ? '⚙' : '✗'} ${describeCall(event.name, call?.input)}${took}`
        this.print(event.ok ? this.theme.dim(text) : this.theme.warn(text))
        for (const line of call?.plan ?? []) this.print(this.theme.dim(line))
        if (!this.running.size) this.stop()
        this.redraw()
        return true
      }
      default:
        return false
    }
  }

  /** The running tools' names (for the status bar), '' when none runs. */
  names(): string {
    return [...new Set([...this.running.values()].map((c) => c.name))].join(', ')
  }

  /** The live block for `width` columns in at most `maxRows` rows (none when nothing runs). */
  lines(width: number, maxRows: number): string[] {
    if (!this.running.size || maxRows < 1) return []
    const room = Math.max(10, width - 1)
    const spinner = SPINNER[this.frame % SPINNER.length]!
    const calls = [...this.running.values()]
    const rows: string[] = []
    const head = (call: Running) => {
      const args = describeArguments(call.input)
      return `${spinner} ${call.name} ${seconds(this.now() - call.startedAt)}${args ? ` · ${args}` : ''}`
    }
    // Several calls at once: one row each (their arguments are kept in full by the transcript).
    if (calls.length > 1) {
      for (const call of calls.slice(-maxRows)) rows.push(this.theme.accent(truncate(head(call).replace(/\n/g, ' '), room)))
      return rows
    }
    const call = calls[0]!
    const tail = call.tail.slice(-Math.min(TAIL_LINES, Math.max(0, maxRows - 1))).map((l) => this.theme.dim(truncate(`  │ ${l}`, room)))
    const wrapped = wrapPlain(head(call), room)
    const headRoom = Math.max(1, maxRows - tail.length)
    if (wrapped.length > headRoom) wrapped.splice(headRoom - 1, wrapped.length, truncate(wrapped.slice(headRoom - 1).join(' '), room))
    return [...wrapped.map((r, i) => (i === 0 ? this.theme.accent(r) : this.theme.dim(r))), ...tail]
  }

  /** The turn ended: a call it never ended (the run failed mid-batch) is not shown as running. */
  clear(): void {
    this.running.clear()
    this.stop()
  }

  /** Ends the spinner (nothing runs, or the chat is closing). */
  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  private tick(): void {
    if (this.timer) return
    this.timer = setInterval(() => {
      this.frame++
      this.redraw()
    }, FRAME_MS)
    this.timer.unref?.()
    this.redraw()
  }
}
