// The terminal sandbox (tools-terminal): whether local commands run with the protected places
// read-only here. `auto` on a machine without bubblewrap runs them unconfined, which only this line
// and one log warning say; `bwrap` there refuses every local command, which is a failure.

import { errorMessage, TERMINAL_SANDBOX_SERVICE, type CliContext, type TerminalSandboxService } from 'agent/sdk'
import type { Report } from './report.ts'

export async function checkSandbox(report: Report, ctx: Pick<CliContext, 'services'>): Promise<void> {
  const service = ctx.services.get<TerminalSandboxService>(TERMINAL_SANDBOX_SERVICE)
  if (!service) return
  let status: Awaited<ReturnType<TerminalSandboxService['status']>>
  try {
    status = await service.status()
  } catch (error) {
    // An invalid AGENT_TERMINAL_SANDBOX: every local command refuses.
    report.add('Tools', 'terminal sandbox', 'fail', errorMessage(error), 'set AGENT_TERMINAL_SANDBOX to auto, bwrap or off')
    return
  }
  if (status.active) report.add('Tools', 'terminal sandbox', 'ok', `bubblewrap (terminal.sandbox: ${status.mode}): protected places are read-only to commands`)
  else if (status.mode === 'off') report.add('Tools', 'terminal sandbox', 'info', 'off (terminal.sandbox: off): commands run unconfined; the approvals judge is the only guard')
  else if (status.mode === 'bwrap') report.add('Tools', 'terminal sandbox', 'fail', `${status.reason}: every local command is refused (terminal.sandbox: bwrap)`, 'install bubblewrap (Debian: apt-get install bubblewrap), or set terminal.sandbox: auto')
  else report.add('Tools', 'terminal sandbox', 'warn', `not in use: ${status.reason}; commands run unconfined`, 'install bubblewrap (Debian: apt-get install bubblewrap), or set terminal.sandbox: off to say so')
}
