// Dangerous-command approvals asked in the editor: the approvals extension calls the run's
// `approvalPrompt` (sdk/approvals.ts), which becomes a `session/request_permission` request on the
// tool call waiting for it. No answer before the approval deadline, a cancelled turn, a cancelled
// or unknown outcome, or a failed request all deny (fail closed).

import { errorMessage, linkAbortWithTimeout, type ApprovalChoice, type ApprovalPrompt, type ApprovalRequest, type Logger } from 'agent/sdk'
import type { AgentContext, PermissionOption } from '@agentclientprotocol/sdk/unstable'

export const PERMISSION_OPTIONS: readonly PermissionOption[] = Object.freeze([
  { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'session', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'always', name: 'Always allow (saved to config)', kind: 'allow_always' },
  { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
])

const CHOICES: Record<string, ApprovalChoice> = { once: 'once', session: 'session', always: 'always', deny: 'deny' }

export interface PermissionDeps {
  client: AgentContext
  sessionId: string
  /** The turn's signal: a cancelled turn withdraws its question. */
  signal: AbortSignal
  /** The tool call of this turn the request is about, when it can be told. */
  callFor(request: Pick<ApprovalRequest, 'tool' | 'command' | 'callId'>): { toolCallId: string; title: string } | undefined
  log: Logger
}

export function permissionPrompt(deps: PermissionDeps): ApprovalPrompt {
  return async (request: ApprovalRequest) => {
    const call = deps.callFor(request)
    const reasons = request.findings.map((f) => f.description).join('; ')
    const link = linkAbortWithTimeout(Math.max(1, request.expiresAt - Date.now()), deps.signal)
    try {
      const response = await deps.client.request(
        'session/request_permission',
        {
          sessionId: deps.sessionId,
          toolCall: {
            toolCallId: call?.toolCallId ?? `approval-${request.id}`,
            title: call?.title ?? `Run \`${request.command.slice(0, 100)}\``,
            kind: 'execute',
            status: 'pending',
            rawInput: { command: request.command },
            content: [{ type: 'content', content: { type: 'text', text: `Approval needed: ${reasons}\n\n${request.command}` } }],
          },
          options: [...PERMISSION_OPTIONS],
        },
        { cancellationSignal: link.signal, stopWaitingOnCancel: true },
      )
      const outcome = response.outcome
      if (outcome.outcome !== 'selected') return 'deny'
      return CHOICES[(outcome as { optionId?: string }).optionId ?? ''] ?? 'deny'
    } catch (error) {
      if (!link.signal.aborted) deps.log.warn(`the editor did not answer a permission request: ${errorMessage(error)}`)
      return 'deny'
    } finally {
      link.dispose()
    }
  }
}
