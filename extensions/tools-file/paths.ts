// Paths of the file tools: relative to the session's working directory, `~` expanded, checked and
// used as real paths (sdk/protected-paths.ts). Secret files are not read; protected paths are
// written only when the approvals guard let this very call write that real path.

import { APPROVALS_SERVICE, pathClassifier, toolPath, type ApprovalsService, type PathClassifier, type Services, type ToolSession } from 'agent/sdk'
import { sep } from 'node:path'

export interface FileToolDeps {
  agentHome: string
  services: Services
}

export interface ToolPath {
  /** The path as the model wrote it, made absolute (for messages). */
  path: string
  /** Where the call really lands: what is checked and then read or written. */
  real: string
}

export function resolvePath(cwd: string, raw: unknown): ToolPath {
  return toolPath(raw, cwd)
}

export function classifier(deps: FileToolDeps): PathClassifier {
  return pathClassifier({ agentHome: deps.agentHome })
}

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep)

/** Throws (one line the model sees) when `target` is a secret file. */
export function assertReadable(target: ToolPath, paths: PathClassifier): void {
  const real = paths.real(target.real)
  const found = real.kind === 'secret' ? real : paths.hardLinkedSecret(target.real)
  if (found) throw new Error(`reading is refused: ${found.reason}${target.real !== target.path ? ` (${target.path} leads there)` : ''}`)
}

/**
 * Throws unless `target` is an ordinary path, or the approvals guard approved this call's write to
 * it (without the approvals extension, a protected write is refused).
 */
export function assertWritable(target: ToolPath, paths: PathClassifier, deps: FileToolDeps, callId: string, session: ToolSession): void {
  const found = paths.real(target.real)
  if (found.kind === 'ordinary') return
  const approvals = deps.services.get<ApprovalsService>(APPROVALS_SERVICE)
  if (approvals?.writeApproved(session.id, callId, found.path)) return
  throw new Error(`writing is refused without approval: ${found.reason}${target.real !== target.path ? ` (${target.path} leads there)` : ''}`)
}

/** `path` relative to the working directory when it is inside it, for short output lines. */
export function display(path: string, cwd: string): string {
  return within(path, cwd) && path !== cwd ? path.slice(cwd.length + (cwd.endsWith(sep) ? 0 : 1)) : path
}
