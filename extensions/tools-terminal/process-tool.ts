// The `process` tool: list, poll, wait for and kill the background processes `terminal` started.

import { defineTool } from 'agent/sdk'
import type { BackgroundProcess, BackgroundRegistry } from './background.ts'

// Every action that shows output (list, poll, wait) goes through here: while the process runs, the
// end of its output may be a secret half printed, so it is read as an open end (output.ts).
function describe(entry: BackgroundProcess, tail = 4000) {
  return {
    process_id: entry.id,
    command: entry.command,
    status: entry.status,
    exit_code: entry.exitCode,
    running_seconds: Math.round(((entry.endedAt ?? Date.now()) - entry.startedAt) / 1000),
    // Running until its exit is handled (`endedAt`), not until `status` says so: a killed process
    // may still be writing.
    output: entry.output.last(tail, entry.endedAt === undefined),
  }
}

export function processTool(registry: () => BackgroundRegistry) {
  return defineTool({
    name: 'process',
    toolset: 'terminal',
    description: 'Manage background processes started by the terminal tool: list, poll (status and recent output), wait (until it exits or the timeout passes), kill.',
    parameters: {
      type: 'object',
      properties: {
        action: { enum: ['list', 'poll', 'wait', 'kill'] },
        process_id: { type: 'string' },
        timeout: { type: 'number', description: 'wait: seconds to wait at most (default 30, at most 600)' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    async execute({ input, session, signal }) {
      const { action, process_id: id, timeout } = (input ?? {}) as { action?: string; process_id?: string; timeout?: number }
      const processes = registry()
      if (action === 'list') return { processes: processes.list(session.id).map((p) => describe(p, 300)) }
      if (!id) throw new Error(`process ${action ?? ''} needs "process_id"`)
      const entry = processes.get(id)
      if (!entry || entry.sessionId !== session.id) throw new Error(`no background process "${id}" in this session`)
      if (action === 'poll') return describe(entry)
      if (action === 'kill') return { process_id: id, killed: processes.kill(id), status: entry.status }
      if (action === 'wait') {
        const ms = Math.min(Math.max(timeout ?? 30, 0), 600) * 1000
        let timer: NodeJS.Timeout | undefined
        await Promise.race([
          entry.done,
          new Promise<void>((r) => (timer = setTimeout(r, ms))),
          new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true })),
        ])
        clearTimeout(timer)
        return describe(entry)
      }
      throw new Error(`unknown process action "${action}" (list, poll, wait, kill)`)
    },
  })
}
