// read_file: a text file with numbered lines (`N|text`), a window of lines for big files, long
// lines shortened; binary files and folders are refused with a clear reason.

import { readFile, stat } from 'node:fs/promises'
import { defineTool, editorIoOf, errorMessage, type ToolDefinition } from 'agent/sdk'
import { assertReadable, classifier, display, resolvePath, type FileToolDeps } from './paths.ts'

const MAX_FILE_BYTES = 50 * 1024 * 1024
const MAX_LINE_CHARS = 2000
const DEFAULT_LIMIT = 2000

export function isBinary(buffer: Buffer): boolean {
  const head = buffer.subarray(0, 8192)
  return head.includes(0)
}

export function describeFsError(error: unknown, shown: string): Error {
  const code = (error as NodeJS.ErrnoException)?.code
  if (code === 'ENOENT') return new Error(`${shown} does not exist`)
  if (code === 'EACCES' || code === 'EPERM') return new Error(`permission denied: ${shown}`)
  if (code === 'EISDIR') return new Error(`${shown} is a directory`)
  if (code === 'ENOTDIR') return new Error(`a part of ${shown} is not a directory`)
  return error instanceof Error ? error : new Error(String(error))
}

async function readFromDisk(path: string, shown: string): Promise<string> {
  let info
  try {
    info = await stat(path)
  } catch (error) {
    throw describeFsError(error, shown)
  }
  if (info.isDirectory()) throw new Error(`${shown} is a directory; use search_files with target "files" to list it`)
  if (info.size > MAX_FILE_BYTES) throw new Error(`${shown} is ${info.size} bytes, more than read_file handles; use search_files or the terminal`)
  let buffer: Buffer
  try {
    buffer = await readFile(path)
  } catch (error) {
    throw describeFsError(error, shown)
  }
  if (isBinary(buffer)) throw new Error(`${shown} is a binary file (${buffer.length} bytes)`)
  return buffer.toString('utf8')
}

export function readFileTool(deps: FileToolDeps): ToolDefinition {
  return defineTool<{ path: string; offset?: number; limit?: number }>({
    name: 'read_file',
    toolset: 'file',
    description:
      'Read a text file. Lines are numbered as `N|text` (the number and bar are not part of the file). ' +
      `Reads up to ${DEFAULT_LIMIT} lines; use offset (1-based line) and limit for more.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the working directory' },
        offset: { type: 'integer', minimum: 1, description: 'First line to read (1-based)' },
        limit: { type: 'integer', minimum: 1, maximum: 10000, description: `Lines to read (default ${DEFAULT_LIMIT})` },
      },
      required: ['path'],
      additionalProperties: false,
    },
    async execute({ input, session }) {
      const target = resolvePath(session.cwd, input.path)
      const shown = display(target.path, session.cwd)
      assertReadable(target, classifier(deps))
      const path = target.real
      const offset = input.offset === undefined ? 1 : Number(input.offset)
      const limit = input.limit === undefined ? DEFAULT_LIMIT : Number(input.limit)
      if (!Number.isInteger(offset) || offset < 1) throw new Error('"offset" must be a line number of 1 or more')
      if (!Number.isInteger(limit) || limit < 1 || limit > 10000) throw new Error('"limit" must be between 1 and 10000')
      // An editor (ACP) that offers its buffers: the file as the user sees it, unsaved changes included.
      const fromEditor = editorIoOf(session)?.readTextFile
      const text = fromEditor ? await fromEditor(path).catch((error: unknown) => Promise.reject(new Error(`${shown}: the editor could not read it: ${errorMessage(error)}`))) : await readFromDisk(path, shown)
      if (text.length === 0) return `(${shown} is empty)`
      const lines = text.split(/\r?\n/)
      if (lines.at(-1) === '') lines.pop()
      if (offset > lines.length) throw new Error(`${shown} has ${lines.length} lines; offset ${offset} is past the end`)
      const end = Math.min(lines.length, offset - 1 + limit)
      const out: string[] = []
      for (let i = offset - 1; i < end; i++) {
        const line = lines[i]!
        out.push(`${i + 1}|${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line shortened from ${line.length} characters]` : line}`)
      }
      if (end < lines.length || offset > 1) out.push(`[lines ${offset}-${end} of ${lines.length}${end < lines.length ? `; continue with offset ${end + 1}` : ''}]`)
      return out.join('\n')
    },
  })
}
