// How the agent's tool calls look in an editor: the ACP kind (its icon), a short title, the files
// it touches (for follow-along), and the result as text or a diff. Unknown tools (plugins, MCP)
// fall back to their name and kind `other`.

import { isAbsolute, resolve } from 'node:path'
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk/unstable'

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  skill_view: 'read',
  skills_list: 'read',
  write_file: 'edit',
  patch: 'edit',
  rollback: 'edit',
  terminal: 'execute',
  process: 'execute',
  search_files: 'search',
  session_search: 'search',
  web_search: 'search',
  web_extract: 'fetch',
  web_crawl: 'fetch',
  delegate_task: 'think',
  todo: 'think',
}

/** Characters of a tool result shown in the editor (the model still gets the whole result). */
export const MAX_SHOWN_CHARS = 20_000

export function toolKind(name: string): ToolKind {
  if (KINDS[name]) return KINDS[name]
  if (name.startsWith('browser')) return 'fetch'
  return 'other'
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined)
const short = (text: string, max = 100) => {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

export function toolTitle(name: string, input: unknown): string {
  const args = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>
  const path = str(args.path)
  switch (name) {
    case 'read_file':
      return path ? `Read ${path}` : 'Read a file'
    case 'write_file':
      return path ? `Write ${path}` : 'Write a file'
    case 'patch':
      return path ? `Edit ${path}` : 'Edit a file'
    case 'terminal':
      return str(args.command) ? `Run \`${short(str(args.command)!)}\`` : 'Run a command'
    case 'search_files':
      return str(args.pattern) ? `Search for ${short(str(args.pattern)!, 60)}${path ? ` in ${path}` : ''}` : 'Search files'
    case 'web_search':
      return str(args.query) ? `Web search: ${short(str(args.query)!)}` : 'Web search'
    case 'web_extract':
    case 'web_crawl': {
      const urls = Array.isArray(args.urls) ? args.urls.filter((u): u is string => typeof u === 'string') : str(args.url) ? [str(args.url)!] : []
      return urls.length ? `Fetch ${short(urls.join(', '))}` : 'Fetch a page'
    }
    case 'browser_navigate':
      return str(args.url) ? `Open ${short(str(args.url)!)}` : 'Open a page'
    case 'todo':
      return Array.isArray(args.todos) ? 'Update the plan' : 'Read the plan'
    case 'delegate_task':
      return str(args.goal) ? `Delegate: ${short(str(args.goal)!)}` : 'Delegate a task'
    default:
      return name
  }
}

/** Files a call reads or changes, as absolute paths. */
export function toolLocations(name: string, input: unknown, cwd: string): ToolCallLocation[] {
  if (!['read_file', 'write_file', 'patch', 'search_files'].includes(name)) return []
  const args = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>
  const path = str(args.path)
  if (!path) return []
  const line = name === 'read_file' && Number.isInteger(args.offset) ? (args.offset as number) : undefined
  return [{ path: isAbsolute(path) ? path : resolve(cwd, path), ...(line ? { line } : {}) }]
}

export function textContent(text: string): ToolCallContent {
  const shown = text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}\n[… ${text.length - MAX_SHOWN_CHARS} more characters]` : text
  return { type: 'content', content: { type: 'text', text: shown } }
}

/**
 * The diff an edit made, when the call's input says it: `patch` (old and new string) and
 * `write_file` (new content; `before` is the file as it was when the call started, if known).
 */
export function editDiff(name: string, input: unknown, cwd: string, before: string | null | undefined): ToolCallContent | undefined {
  const args = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>
  const path = str(args.path)
  if (!path) return undefined
  const absolute = isAbsolute(path) ? path : resolve(cwd, path)
  if (name === 'patch' && typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    return { type: 'diff', path: absolute, oldText: args.old_string, newText: args.new_string }
  }
  if (name === 'write_file' && typeof args.content === 'string') {
    return { type: 'diff', path: absolute, oldText: before ?? null, newText: args.content }
  }
  return undefined
}
