// The editor's own file system and terminal, offered to the agent's tools for one run: an ACP
// editor (`agent acp`) passes them as `RunRequest.extra.editorIo` when it advertises `fs/*` or
// `terminal`. The file tools then read the editor's buffers (unsaved changes included) and write
// through the editor (which shows and tracks the change); the terminal tool runs foreground
// commands in the editor's terminal. Every guard (paths, approvals, checkpoints) applies as before:
// only the final read, write or run goes through the editor.

import type { ToolSession } from './types.ts'

export const EDITOR_IO_KEY = 'editorIo'

export interface EditorCommand {
  /** Program and arguments (the terminal tool passes its shell and `-c <command>`). */
  command: string
  args: string[]
  cwd: string
  timeoutMs: number
  /** Output kept at most (the editor truncates from the start). */
  outputByteLimit: number
  signal: AbortSignal
  /** The tool call running it, so the editor can show the terminal in that call. */
  callId?: string
}

export interface EditorCommandResult {
  output: string
  exitCode: number | null
  timedOut: boolean
  interrupted: boolean
  truncated: boolean
}

export interface EditorIo {
  /** The file's text as the editor has it; rejects when it cannot be read. */
  readTextFile?(path: string): Promise<string>
  /** Writes the whole file through the editor (folders are the editor's business). */
  writeTextFile?(path: string, content: string): Promise<void>
  runCommand?(command: EditorCommand): Promise<EditorCommandResult>
}

/** The editor I/O of a tool call's run, when its surface offers one. */
export function editorIoOf(session: Pick<ToolSession, 'extra'> | undefined): EditorIo | undefined {
  const io = session?.extra?.[EDITOR_IO_KEY]
  return io && typeof io === 'object' ? (io as EditorIo) : undefined
}
