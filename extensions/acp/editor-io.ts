// The editor's file system and terminal for one session's runs (sdk/editor-io.ts), built from what
// the client advertised at initialize: `fs.readTextFile` / `fs.writeTextFile` become the file tools'
// reads and writes, `terminal` the terminal tool's foreground commands (terminal/create, then
// wait_for_exit bounded by the tool's timeout and the turn's cancellation, terminal/output, and
// always terminal/release; a timed-out or cancelled command is killed first).

import type { EditorCommand, EditorCommandResult, EditorIo } from 'agent/sdk'
import type { AgentContext, ClientCapabilities, TerminalOutputResponse } from '@agentclientprotocol/sdk/unstable'

/** `onTerminal`: a command of that tool call runs in that terminal (the turn embeds it in the call). */
export function editorIo(client: AgentContext, sessionId: string, capabilities: ClientCapabilities | undefined, onTerminal?: (callId: string, terminalId: string) => void): EditorIo | undefined {
  const io: EditorIo = {}
  if (capabilities?.fs?.readTextFile) io.readTextFile = async (path) => (await client.request('fs/read_text_file', { sessionId, path })).content
  if (capabilities?.fs?.writeTextFile) io.writeTextFile = async (path, content) => void (await client.request('fs/write_text_file', { sessionId, path, content }))
  if (capabilities?.terminal) io.runCommand = (command) => runInTerminal(client, sessionId, command, onTerminal)
  return Object.keys(io).length ? io : undefined
}

async function runInTerminal(client: AgentContext, sessionId: string, command: EditorCommand, onTerminal?: (callId: string, terminalId: string) => void): Promise<EditorCommandResult> {
  const { terminalId } = await client.request('terminal/create', { sessionId, command: command.command, args: command.args, cwd: command.cwd, outputByteLimit: command.outputByteLimit })
  const ids = { sessionId, terminalId }
  if (command.callId) onTerminal?.(command.callId, terminalId)
  try {
    let timer: NodeJS.Timeout | undefined
    let stopped: 'timeout' | 'cancelled' | undefined
    const stop = new Promise<void>((resolve) => {
      timer = setTimeout(() => ((stopped = 'timeout'), resolve()), command.timeoutMs)
      if (command.signal.aborted) (stopped = 'cancelled'), resolve()
      command.signal.addEventListener('abort', () => ((stopped ??= 'cancelled'), resolve()), { once: true })
    })
    const exited = client.request('terminal/wait_for_exit', ids)
    exited.catch(() => undefined)
    const status = await Promise.race([exited, stop.then(() => undefined)])
    clearTimeout(timer)
    if (stopped) await client.request('terminal/kill', ids).catch(() => undefined)
    const { output, truncated, exitStatus } = (await client.request('terminal/output', ids)) as TerminalOutputResponse
    const exitCode = exitStatus?.exitCode ?? (status as { exitCode?: number | null } | undefined)?.exitCode ?? null
    return { output, truncated, exitCode, timedOut: stopped === 'timeout', interrupted: stopped === 'cancelled' }
  } finally {
    await client.request('terminal/release', ids).catch(() => undefined)
  }
}
