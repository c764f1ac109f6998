// write_file and patch: whole-file writes (folders created, atomic replace) and exact-text edits
// (one unique occurrence unless replace_all; CRLF files matched with LF input). Both modify files,
// so checkpoints snapshot before them.

import { mkdir, readFile, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { defineTool, editorIoOf, forgetAgentWrite, noteAgentWrite, type ToolSession, type ToolDefinition } from 'agent/sdk'
import { assertReadable, assertWritable, classifier, display, resolvePath, type FileToolDeps } from './paths.ts'
import { describeFsError, isBinary } from './read.ts'
import { replaceFile } from './replace.ts'

async function atomicWrite(path: string, content: string, session: ToolSession): Promise<void> {
  // An editor (ACP) that offers writes: through it, so it shows and tracks the change.
  const toEditor = editorIoOf(session)?.writeTextFile
  if (toEditor) return toEditor(path, content)
  await replaceFile(path, content)
}

/** The file's text: the editor's buffer when it offers one, else the disk's. */
async function currentText(path: string, shown: string, session: ToolSession): Promise<string> {
  const fromEditor = editorIoOf(session)?.readTextFile
  if (fromEditor) return fromEditor(path)
  let buffer: Buffer
  try {
    buffer = await readFile(path)
  } catch (error) {
    throw describeFsError(error, shown)
  }
  if (isBinary(buffer)) throw new Error(`${shown} is a binary file`)
  return buffer.toString('utf8')
}

export function writeFileTool(deps: FileToolDeps): ToolDefinition {
  return defineTool<{ path: string; content: string }>({
    name: 'write_file',
    toolset: 'file',
    modifiesFiles: true,
    description: 'Create a file or replace its whole content. Missing folders are created. For small changes to an existing file prefer patch.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the working directory' },
        content: { type: 'string', description: 'The complete new content' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    async execute({ input, session, callId }) {
      const target = resolvePath(session.cwd, input.path)
      const shown = display(target.path, session.cwd)
      if (typeof input.content !== 'string') throw new Error('"content" must be a string')
      assertWritable(target, classifier(deps), deps, callId, session)
      const path = target.real
      let existed = false
      try {
        const info = await stat(path)
        if (info.isDirectory()) throw new Error(`${shown} is a directory`)
        existed = true
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw describeFsError(error, shown)
      }
      try {
        // Told before the folders are made: a sandboxed command's watch must not take them (or the
        // file) for the command's.
        noteAgentWrite(path, input.content)
        await mkdir(dirname(path), { recursive: true })
        await atomicWrite(path, input.content, session)
      } catch (error) {
        forgetAgentWrite(path)
        throw describeFsError(error, shown)
      }
      const lines = input.content === '' ? 0 : input.content.split('\n').length - (input.content.endsWith('\n') ? 1 : 0)
      return `${existed ? 'Replaced' : 'Created'} ${shown} (${Buffer.byteLength(input.content)} bytes, ${lines} lines)`
    },
  })
}

function count(haystack: string, needle: string): number {
  let n = 0
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++
  return n
}

export function patchTool(deps: FileToolDeps): ToolDefinition {
  return defineTool<{ path: string; old_string: string; new_string: string; replace_all?: boolean }>({
    name: 'patch',
    toolset: 'file',
    modifiesFiles: true,
    description:
      'Edit a file by replacing exact text. old_string must match the file exactly (whitespace included, without the N| line prefixes of read_file) ' +
      'and occur once, unless replace_all is true. Include a few surrounding lines to make it unique.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the working directory' },
        old_string: { type: 'string', description: 'The exact text to replace' },
        new_string: { type: 'string', description: 'The replacement text' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence (default false)' },
      },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
    async execute({ input, session, callId }) {
      const target = resolvePath(session.cwd, input.path)
      const shown = display(target.path, session.cwd)
      if (typeof input.old_string !== 'string' || typeof input.new_string !== 'string') throw new Error('"old_string" and "new_string" must be strings')
      if (input.old_string === '') throw new Error('"old_string" is empty; use write_file to create or replace a whole file')
      if (input.old_string === input.new_string) throw new Error('"old_string" and "new_string" are the same; nothing to change')
      const paths = classifier(deps)
      assertWritable(target, paths, deps, callId, session)
      // patch reads before it writes: a hard link of a secret would come back, rewritten into an
      // ordinary file, and whether old_string is found already tells about its text.
      assertReadable(target, paths)
      const path = target.real
      const text = await currentText(path, shown, session)
      let oldText = input.old_string
      let newText = input.new_string
      // A file with CRLF line ends still matches text the model wrote with LF.
      if (count(text, oldText) === 0 && text.includes('\r\n') && !oldText.includes('\r\n')) {
        oldText = oldText.replace(/\n/g, '\r\n')
        newText = newText.replace(/\r?\n/g, '\r\n')
      }
      const occurrences = count(text, oldText)
      if (occurrences === 0) throw new Error(`old_string was not found in ${shown}; read the file again and copy the text exactly, whitespace included`)
      if (occurrences > 1 && !input.replace_all) throw new Error(`old_string occurs ${occurrences} times in ${shown}; add surrounding lines to make it unique, or set replace_all`)
      const firstLine = text.slice(0, text.indexOf(oldText)).split('\n').length
      const updated = input.replace_all ? text.split(oldText).join(newText) : text.replace(oldText, () => newText)
      try {
        // Told first: a sandboxed command's watch must not take this write for the command's.
        noteAgentWrite(path, updated)
        await atomicWrite(path, updated, session)
      } catch (error) {
        forgetAgentWrite(path)
        throw describeFsError(error, shown)
      }
      return `Patched ${shown}: ${occurrences === 1 ? '1 replacement' : `${occurrences} replacements`}, first at line ${firstLine}`
    },
  })
}
