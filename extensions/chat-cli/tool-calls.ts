// How a tool call is told to the user: its arguments in full (the main one cut only past ARG_CHARS,
// the others past OTHER_CHARS, saying how much was left out), its duration, and the lines
// `agent chat -q` writes on stderr per call (text, JSON lines with --json, nothing with --quiet).

import type { RunEvent } from 'agent/sdk'

/** Characters shown of the main argument (a command, a path, a query). */
const ARG_CHARS = 2000
/** Characters shown of each other argument (a file's whole content is not a progress line). */
const OTHER_CHARS = 200

function shown(value: unknown, max = ARG_CHARS): string {
  let text: string
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  } catch {
    text = String(value)
  }
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text
  // The model wrote these: an escape sequence must not drive the user's terminal. Shown as \xNN.
  return cut.replace(/\r\n/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/**
 * The arguments of a call as one text: the first string argument, the main one, as it is (a
 * command, a path, a query), the others as `key=value`; anything else as JSON.
 */
export function describeArguments(input: unknown): string {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input === undefined ? '' : shown(input)
  const entries = Object.entries(input as Record<string, unknown>)
  const main = entries.find(([, v]) => typeof v === 'string')
  const rest = entries.filter((e) => e !== main).map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(shown(v, OTHER_CHARS)) : shown(v, OTHER_CHARS)}`)
  if (!main) return rest.join(' ')
  return rest.length ? `${shown(main[1])} (${rest.join(', ')})` : shown(main[1])
}

/** `name: arguments`, continuation lines of a multi-line argument indented by `indent`. */
export function describeCall(name: string, input: unknown, indent = '  '): string {
  const args = describeArguments(input)
  return (args ? `${name}: ${args}` : name).replace(/\r?\n/g, `\n${indent}`)
}

/** 0.4 s, 12.0 s, 2m 05s. */
export function seconds(ms: number): string {
  if (ms < 60_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`
  const s = Math.floor(ms / 1000)
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`
}

export interface ToolCallRecord {
  call_id: string
  name: string
  arguments: unknown
  ok: boolean
  duration_ms: number
  result_bytes: number
}

export type ToolLogMode = 'text' | 'json' | 'quiet'

/**
 * The tool calls of a `chat -q` run. `text`: a line when a call starts (`⚙ terminal: ls -la`) and
 * one when it ends (`  ✓ terminal 0.4 s`); `json`: the same as JSON lines ({"event":"tool_start"…},
 * {"event":"tool_end"…}); `quiet`: nothing. Every mode keeps the records for the --json document.
 */
export class ToolCallLog {
  private readonly running = new Map<string, { name: string; input: unknown; startedAt: number }>()
  private readonly done: ToolCallRecord[] = []

  constructor(
    private readonly mode: ToolLogMode,
    private readonly write: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  event(event: RunEvent): void {
    if (event.type === 'tool.start') {
      this.running.set(event.callId, { name: event.name, input: event.input, startedAt: this.now() })
      if (this.mode === 'text') this.write(`⚙ ${describeCall(event.name, event.input)}`)
      if (this.mode === 'json') this.write(JSON.stringify({ event: 'tool_start', call_id: event.callId, name: event.name, arguments: event.input }))
      return
    }
    if (event.type !== 'tool.end') return
    const started = this.running.get(event.callId)
    this.running.delete(event.callId)
    const record: ToolCallRecord = {
      call_id: event.callId,
      name: event.name,
      arguments: started?.input ?? null,
      ok: event.ok,
      duration_ms: started ? Math.max(0, this.now() - started.startedAt) : 0,
      result_bytes: event.resultBytes,
    }
    this.done.push(record)
    if (this.mode === 'text') this.write(`  ${record.ok ? '✓' : '✗'} ${event.name}${record.ok ? '' : ' failed'} ${seconds(record.duration_ms)}`)
    if (this.mode === 'json') this.write(JSON.stringify({ event: 'tool_end', call_id: record.call_id, name: record.name, ok: record.ok, duration_ms: record.duration_ms, result_bytes: record.result_bytes }))
  }

  records(): ToolCallRecord[] {
    return this.done.map((r) => ({ ...r }))
  }
}
