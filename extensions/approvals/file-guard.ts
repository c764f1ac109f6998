// File-tool writes (write_file, patch) to protected real paths (sdk/protected-paths.ts) become
// findings for the approval flow, and the grants the file tools check before writing such a path
// (so a call that never passed this guard is refused by the tool itself).

import { homedir } from 'node:os'
import { resolve, sep } from 'node:path'
import { pathClassifier, toolPath, type CommandFinding, type PathClass, type ToolCallEvent } from 'agent/sdk'

/** The file tools that write (their `path` argument is judged). */
export const FILE_WRITE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'patch'])

export interface FileWrite {
  /** The real path the call would write. */
  path: string
  /** What a person reviews: the tool, the real path and the new text. */
  command: string
  findings: CommandFinding[]
}

const PREVIEW_CHARS = 800

/**
 * The protected-path finding of a file-tool write; undefined when `event` is not one. A path that
 * cannot be resolved is left to the tool, which fails on it (and writes nothing protected without
 * a grant).
 */
export function assessFileWrite(event: ToolCallEvent, agentHome: string): FileWrite | undefined {
  if (!FILE_WRITE_TOOLS.has(event.tool)) return undefined
  const input = (event.input ?? {}) as { path?: unknown; content?: unknown; old_string?: unknown; new_string?: unknown }
  let real: string
  try {
    real = toolPath(input.path, event.session.cwd).real
  } catch {
    return undefined
  }
  const found = pathClassifier({ agentHome }).real(real)
  if (found.kind === 'ordinary') return { path: found.path, command: '', findings: [] }
  const key = grantKey(found, agentHome)
  const text = event.tool === 'patch' ? `- ${String(input.old_string)}\n+ ${String(input.new_string)}` : String(input.content ?? '')
  const preview = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}… [${text.length} characters]` : text
  return {
    path: found.path,
    command: visible(`${event.tool} ${found.path}\n${preview}`),
    findings: [{ key, description: `file write to a protected path: ${found.reason}` }],
  }
}

/**
 * The key a `session` or `always` grant remembers: one per protected place, so approving ~/.gitconfig
 * for the session does not open ~/.ssh, nor one repository's hooks another's; in the agent's home,
 * one per entry (`agent-home-write:notes.md` does not open `extensions` or `config.yaml`); a secret
 * file's place is never the same grant as the protected files beside it.
 */
export function grantKey(found: PathClass, agentHome: string): string {
  const home = resolve(agentHome)
  if (found.kind !== 'secret' && found.area === 'agent-home' && found.root === home) {
    const entry = found.path.startsWith(home + sep) ? found.path.slice(home.length + 1).split(sep)[0] : ''
    return `${AGENT_HOME_GRANT}:${entry || '.'}`
  }
  const user = homedir()
  const root = found.root ?? found.path
  const place = root === user ? '~' : root.startsWith(user + sep) ? `~${root.slice(user.length)}` : root
  return `${found.kind === 'secret' ? 'secret-path-write' : 'protected-path-write'}:${place}`
}

const AGENT_HOME_GRANT = 'agent-home-write'

/**
 * Grants `always` may not save: the agent's home holds its code and the settings of its guards, and a
 * saved grant also applies where no one is asked (cron, webhooks, the API server). Given for the session.
 */
export const sessionOnlyGrant = (key: string): boolean => key.startsWith(`${AGENT_HOME_GRANT}:`)

/** Control characters and bidi/zero-width marks shown as escapes: the text must not restyle or hide the prompt. */
function visible(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)
}

/** What one tool call was allowed (a protected path it may write, leaving the sandbox), taken once by that call (bounded). */
export class CallGrants {
  private readonly granted = new Set<string>()
  constructor(private readonly max = 256) {}

  grant(sessionId: string, callId: string, what: string): void {
    this.granted.add(JSON.stringify([sessionId, callId, what]))
    // Calls blocked after this guard (a later tap) never take theirs: drop the oldest.
    for (const old of this.granted) {
      if (this.granted.size <= this.max) break
      this.granted.delete(old)
    }
  }

  take(sessionId: string, callId: string, what: string): boolean {
    return this.granted.delete(JSON.stringify([sessionId, callId, what]))
  }
}
