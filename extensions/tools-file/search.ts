// search_files: a regular expression over file contents (`path:line: text`, optional context
// lines), or a glob over file names. The walk skips VCS and dependency folders, binary and very
// large files, and stops at the result limit or after a bounded number of files.

import { open, readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { caseInsensitiveAt, defineTool, type ToolDefinition } from 'agent/sdk'
import { assertReadable, classifier, display, resolvePath, type FileToolDeps } from './paths.ts'
import { describeFsError, isBinary } from './read.ts'

const SKIP_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.cache'])
const MAX_FILES = 50_000
const MAX_SEARCH_BYTES = 5 * 1024 * 1024
const MAX_LINE_CHARS = 300

interface SearchInput {
  pattern: string
  path?: string
  target?: 'content' | 'files'
  file_glob?: string
  ignore_case?: boolean
  context?: number
  limit?: number
}

/** Files below `root`, depth first in name order, at most MAX_FILES. */
async function* walk(root: string, signal: AbortSignal, budget: { files: number }): AsyncGenerator<string> {
  const stack = [root]
  while (stack.length > 0) {
    if (signal.aborted) return
    const dir = stack.pop()!
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      continue
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const dirs: string[] = []
    for (const entry of entries) {
      const full = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) dirs.push(full)
      } else if (entry.isFile()) {
        if (--budget.files < 0) return
        yield full
      }
    }
    // Subfolders in name order: the stack pops the last pushed first.
    for (let i = dirs.length - 1; i >= 0; i--) stack.push(dirs[i]!)
  }
}

async function looksBinary(path: string): Promise<boolean> {
  const handle = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(4096)
    const { bytesRead } = await handle.read(buffer, 0, 4096, 0)
    return isBinary(buffer.subarray(0, bytesRead))
  } finally {
    await handle.close()
  }
}

function compile(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '')
  } catch (error) {
    throw new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`)
  }
}

export function searchFilesTool(deps: FileToolDeps): ToolDefinition {
  return defineTool<SearchInput>({
    name: 'search_files',
    toolset: 'file',
    description:
      'Search files. target "content" (default): lines matching a regular expression, as `path:line: text`. ' +
      'target "files": paths matching a glob such as `*.ts` or `src/**/test_*.py`. Skips .git, node_modules and binary files.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Regular expression (content) or glob (files)' },
        path: { type: 'string', description: 'Folder (or file) to search, relative to the working directory (default ".")' },
        target: { enum: ['content', 'files'], description: 'What to search (default content)' },
        file_glob: { type: 'string', description: 'Only search files whose path matches this glob (content search)' },
        ignore_case: { type: 'boolean' },
        context: { type: 'integer', minimum: 0, maximum: 5, description: 'Lines of context around each match' },
        limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Most results to return (default 50)' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    async execute({ input, session, signal }) {
      if (typeof input.pattern !== 'string' || input.pattern === '') throw new Error('"pattern" must be a non-empty string')
      const start = resolvePath(session.cwd, input.path ?? '.')
      const shownRoot = display(start.path, session.cwd) || '.'
      // The walk starts at the real path and never follows a link below it, so every path it meets
      // is real and can be classified as text; secret files are never opened.
      const paths = classifier(deps)
      assertReadable(start, paths)
      const root = start.real
      const fold = caseInsensitiveAt(root)
      const target = input.target ?? 'content'
      if (target !== 'content' && target !== 'files') throw new Error('"target" must be "content" or "files"')
      const limit = Math.min(500, Math.max(1, Math.floor(Number(input.limit ?? 50))))
      const context = Math.min(5, Math.max(0, Math.floor(Number(input.context ?? 0))))
      let info
      try {
        info = await stat(root)
      } catch (error) {
        throw describeFsError(error, shownRoot)
      }
      const { default: picomatch } = await import('picomatch')
      const globOptions = { dot: true, nocase: Boolean(input.ignore_case) }
      const matcherOf = (glob: string) => {
        const m = picomatch(glob, globOptions)
        // A glob without a slash matches the file name anywhere, like `find -name`.
        return glob.includes('/') ? (rel: string) => m(rel) : (rel: string) => m(rel.split(sep).pop() ?? rel)
      }
      /** Results named below the folder as the model wrote it, not its real path. */
      const shownPath = (file: string) => (file === root ? start.path : join(start.path, relative(root, file)))
      const budget = { files: MAX_FILES }
      const files = info.isDirectory() ? walk(root, signal, budget) : (async function* () { yield root })()
      const results: string[] = []
      let more = false

      if (target === 'files') {
        const match = matcherOf(input.pattern)
        for await (const file of files) {
          const rel = relative(root, file)
          if (!match(rel)) continue
          if (results.length >= limit) { more = true; break }
          results.push(display(shownPath(file), session.cwd))
        }
      } else {
        const regex = compile(input.pattern, Boolean(input.ignore_case))
        const only = input.file_glob ? matcherOf(input.file_glob) : undefined
        outer: for await (const file of files) {
          if (only && !only(relative(root, file) || file)) continue
          try {
            if (paths.ofReal(file, fold).kind === 'secret') continue
            const { size, nlink } = await stat(file)
            if (nlink > 1 && paths.hardLinkedSecret(file)) continue
            if (size > MAX_SEARCH_BYTES || (await looksBinary(file))) continue
          } catch {
            continue
          }
          const lines = (await readFile(file, 'utf8').catch(() => '')).split(/\r?\n/)
          const shown = display(shownPath(file), session.cwd)
          for (let i = 0; i < lines.length; i++) {
            if (!regex.test(lines[i]!)) continue
            if (results.length >= limit) { more = true; break outer }
            const clipLine = (n: number) => (lines[n]!.length > MAX_LINE_CHARS ? `${lines[n]!.slice(0, MAX_LINE_CHARS)}…` : lines[n]!)
            if (context === 0) results.push(`${shown}:${i + 1}: ${clipLine(i)}`)
            else {
              const block: string[] = []
              for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) block.push(`${shown}:${j + 1}${j === i ? ':' : '-'} ${clipLine(j)}`)
              results.push(block.join('\n'))
            }
          }
        }
      }
      if (results.length === 0) return `No ${target === 'files' ? 'files' : 'matches'} for ${JSON.stringify(input.pattern)} in ${shownRoot}`
      const notes: string[] = []
      if (more) notes.push(`[more results left out; showing the first ${limit}]`)
      if (budget.files < 0) notes.push(`[stopped after ${MAX_FILES} files; narrow the path]`)
      return [...results, ...notes].join(context > 0 ? '\n--\n' : '\n')
    },
  })
}
