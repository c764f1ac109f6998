// The tool trace of a subagent run, built from its tool events: one entry per call in call order,
// with the result paired to its call by tool call id; when an id is missing (or unknown), the oldest
// unfinished call of the same tool, else the oldest unfinished call, takes the result.

export interface TraceEntry {
  tool: string
  args_bytes: number
  result_bytes: number
  status: 'ok' | 'error'
}

interface Open {
  callId: string
  entry: TraceEntry & { done: boolean }
}

export class TraceBuilder {
  private readonly calls: Open[] = []

  start(callId: string | undefined, tool: string, input: unknown): void {
    const args = typeof input === 'string' ? input : JSON.stringify(input ?? {})
    this.calls.push({ callId: callId ?? '', entry: { tool, args_bytes: Buffer.byteLength(args), result_bytes: 0, status: 'ok', done: false } })
  }

  end(callId: string | undefined, tool: string, ok: boolean, resultBytes: number): void {
    const open = this.calls.filter((c) => !c.entry.done)
    const byId = callId ? open.filter((c) => c.callId === callId) : []
    const match = (byId.length === 1 ? byId[0] : undefined) ?? open.find((c) => c.entry.tool === tool) ?? open[0]
    if (!match) {
      // A result without a call: keep it visible rather than lose it.
      this.calls.push({ callId: callId ?? '', entry: { tool, args_bytes: 0, result_bytes: resultBytes, status: ok ? 'ok' : 'error', done: true } })
      return
    }
    match.entry.result_bytes = resultBytes
    match.entry.status = ok ? 'ok' : 'error'
    match.entry.done = true
  }

  entries(): TraceEntry[] {
    return this.calls.map(({ entry: { done, ...rest } }) => ({ ...rest, ...(done ? {} : { status: 'error' as const }) }))
  }
}
