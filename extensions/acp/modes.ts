// ACP session modes are the agent's approval modes: the editor's mode picker chooses, per session,
// whether dangerous commands are asked (manual), judged by the auxiliary model first (smart), or run
// without asking (off). The session starts in `approvals.mode`; never-allowed commands stay blocked
// in every mode (the approvals extension reads the run's mode, sdk APPROVAL_MODE_KEY).

import { APPROVAL_MODES, type ApprovalMode, type Settings } from 'agent/sdk'
import type { SessionMode, SessionModeState } from '@agentclientprotocol/sdk/unstable'
import { badParams } from './errors.ts'
import type { LiveSession } from './live-sessions.ts'

export const SESSION_MODES: readonly SessionMode[] = Object.freeze([
  { id: 'manual', name: 'Ask', description: 'Ask before running a dangerous command' },
  { id: 'smart', name: 'Smart', description: 'A judge model approves low-risk commands; the others are asked' },
  { id: 'off', name: 'Auto', description: 'Run commands without asking (never-allowed ones stay blocked)' },
])

function configuredMode(settings: Pick<Settings, 'get'>): ApprovalMode {
  const mode = settings.get<string>('approvals.mode')
  return APPROVAL_MODES.includes(mode as ApprovalMode) ? (mode as ApprovalMode) : 'manual'
}

export function modeState(session: LiveSession, settings: Pick<Settings, 'get'>): SessionModeState {
  return { currentModeId: session.mode ?? configuredMode(settings), availableModes: [...SESSION_MODES] }
}

/** session/set_mode: one of the approval modes, else -32602. */
export function setMode(session: LiveSession, modeId: unknown): void {
  if (!APPROVAL_MODES.includes(modeId as ApprovalMode)) throw badParams(`unknown mode "${String(modeId)}" (this agent has: ${APPROVAL_MODES.join(', ')})`)
  session.mode = modeId as ApprovalMode
}
