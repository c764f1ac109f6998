// The dangerous-command approval service (`services.get<ApprovalsService>('approvals')`, extension
// `approvals`): what surfaces need to show and answer pending approvals (the gateway's `/approve`
// and `/deny`, an API server run, a CLI chat that owns the terminal), and the command assessment
// other command-running tools can reuse.

import type { MessageSource } from './types.ts'

export const APPROVALS_SERVICE = 'approvals'

export type ApprovalMode = 'manual' | 'smart' | 'off'

export const APPROVAL_MODES: readonly ApprovalMode[] = Object.freeze(['manual', 'smart', 'off'])

/**
 * `RunRequest.extra` key: the approval mode of this run instead of `approvals.mode` (an editor's
 * session mode). Never-allowed commands stay blocked in every mode.
 */
export const APPROVAL_MODE_KEY = 'approvalMode'

/** The mode a run asked for, when it names one. */
export function approvalModeOf(extra: Record<string, unknown> | undefined): ApprovalMode | undefined {
  const mode = extra?.[APPROVAL_MODE_KEY]
  return APPROVAL_MODES.includes(mode as ApprovalMode) ? (mode as ApprovalMode) : undefined
}

/** once: this command only; session: its pattern keys for the rest of the session; always: persisted to config. */
export type ApprovalChoice = 'once' | 'session' | 'always' | 'deny'

export interface CommandFinding {
  /** Stable pattern key (what `session` and `always` approvals remember). */
  key: string
  description: string
}

export interface CommandAssessment {
  /** Matches of the never-allowed list: blocked in every mode, no approval can lift it. */
  neverAllowed: CommandFinding[]
  /** Matches of the dangerous list: need approval unless the mode is off. */
  dangerous: CommandFinding[]
}

export interface ApprovalRequest {
  id: string
  sessionId: string
  source?: MessageSource
  tool: string
  /** The tool call waiting for this answer (the run's call id), when known. */
  callId?: string
  command: string
  findings: CommandFinding[]
  createdAt: number
  expiresAt: number
}

/**
 * Asks a person. A chat surface that owns the terminal (the CLI chat) passes one as
 * `RunRequest.extra.approvalPrompt`; it must resolve (a timeout is applied around it).
 */
export type ApprovalPrompt = (request: ApprovalRequest) => Promise<ApprovalChoice>

export interface ApprovalsService {
  /** Judges a command on its shell parse (the parser loads on the first call; rejects if it cannot). */
  assess(command: string): Promise<CommandAssessment>
  /** The same judgement, synchronous once the parser has loaded (for judging many lines, e.g. a scan). */
  judge(): Promise<(command: string) => CommandAssessment>
  /** Requests waiting for an answer, oldest first. */
  pending(filter?: { sessionId?: string; platform?: string; chatId?: string }): ApprovalRequest[]
  /** Answers one pending request; false when it is no longer pending. */
  resolve(id: string, choice: ApprovalChoice, reason?: string): Promise<boolean>
  /** Denies every pending request of a session (e.g. on `/new`); returns how many. */
  denyAll(sessionId: string, reason?: string): number
  /**
   * Whether beforeToolCall let this call write this protected real path (sdk/protected-paths.ts):
   * the file tools ask before writing one, so a call that skipped the guard is refused. Answers
   * true once per approval.
   */
  writeApproved(sessionId: string, callId: string, realPath: string): boolean
  /**
   * Whether this terminal call may run outside the terminal sandbox: it asked to (`outside_sandbox`)
   * and the approvals policy allowed that, or a person approved the call when asked. Answers true
   * once per call; a call that skipped the guard stays in the sandbox.
   */
  unsandboxed(sessionId: string, callId: string): boolean
}

/**
 * File-write grant keys from before grants named their place: one bare `protected-path-write`
 * covered every protected path. Keys are now `protected-path-write:<place>` (`…:~/.ssh`) and
 * `secret-path-write:<place>`, so an allowlist entry with a bare key matches nothing and those
 * writes are asked again (fail closed). It is reported, never widened to every place.
 */
const RETIRED_GRANT_KEYS: Readonly<Record<string, string>> = Object.freeze({
  'protected-path-write': 'protected-path-write:~/.gitconfig',
  'secret-path-write': 'secret-path-write:~/.ssh',
  'agent-home-write': 'agent-home-write:notes.md',
})

export interface StaleAllowlistEntry {
  entry: string
  /** Why it matches nothing, in one line. */
  problem: string
  /** What to write instead. */
  fix: string
}

/** The `approvals.allowlist` entries that no longer match anything (a retired grant key), with what to write instead. */
export function staleAllowlistEntries(allowlist: unknown): StaleAllowlistEntry[] {
  if (!Array.isArray(allowlist)) return []
  return allowlist
    .filter((entry): entry is string => typeof entry === 'string' && Object.hasOwn(RETIRED_GRANT_KEYS, entry.trim()))
    .map((entry) => {
      const key = entry.trim()
      return {
        entry,
        problem: `"${key}" no longer matches anything: file-write grants name their place now, so the writes it allowed are asked again`,
        fix: `replace it with one entry per place you mean, e.g. ${RETIRED_GRANT_KEYS[key]} (the key an approval shows; answering "always" adds it)`,
      }
    })
}
