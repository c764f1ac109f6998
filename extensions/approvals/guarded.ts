// What the approvals guard covers, fixed in code so that no config value can shrink it: the tools
// whose `command` is checked, and (with `process` and the file-write tools of file-guard.ts) the tools
// the kernel refuses whenever this extension is not loaded (ExtensionDefinition.guards).

import { FILE_WRITE_TOOLS } from './file-guard.ts'

/** Tools that run a shell command from their `command` input; `approvals.tools` can only add to these. */
export const COMMAND_TOOLS: readonly string[] = ['terminal']

/**
 * Refused with a one-line reason while approvals is not loaded. `process` only manages what `terminal`
 * started (poll, wait, kill), but it acts on processes, so it stops with terminal.
 */
export const FAIL_CLOSED_TOOLS: readonly string[] = [...COMMAND_TOOLS, 'process', ...FILE_WRITE_TOOLS]

/** The tools whose command is checked: the fixed ones plus any configured (additive, never fewer). */
export function commandTools(configured: readonly string[]): Set<string> {
  return new Set([...COMMAND_TOOLS, ...configured])
}
