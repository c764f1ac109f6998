// Asking a person: through a surface-provided prompt (RunRequest.extra.approvalPrompt), in a gateway
// chat (a request message answered by /approve or /deny), or at an interactive terminal. Without any
// of these there is no one to ask, and the answer is deny.

import { createInterface } from 'node:readline/promises'
import { DELIVERY_SERVICE, errorMessage, type ApprovalChoice, type ApprovalPrompt, type ApprovalRequest, type DeliveryService, type Services } from 'agent/sdk'
import { mayApproveAlways } from './commands.ts'
import type { PendingApprovals } from './pending.ts'

/** Platforms that are not chats a person answers in. */
const UNATTENDED = new Set(['cron', 'webhook', 'api_server', 'delegation'])

/** The question sent to the chat; `/approve always` is offered only to a sender who may give it. */
export function requestText(request: ApprovalRequest, offerAlways: boolean): string {
  const seconds = Math.round((request.expiresAt - request.createdAt) / 1000)
  const always = offerAlways ? ', /approve always to allow it from now on' : ''
  return [
    `⚠️ Approval needed: ${request.findings.map((f) => f.description).join('; ')}`,
    '```',
    request.command.length > 1500 ? `${request.command.slice(0, 1500)}…` : request.command,
    '```',
    `Reply /approve to run it once, /approve session to allow this kind of command for the session${always}, or /deny. No answer in ${seconds} s denies it.`,
  ].join('\n')
}

export async function askPerson(
  deps: { services: Services; pending: PendingApprovals; timeoutMs: number; isTTY: () => boolean; signal?: AbortSignal },
  request: Omit<ApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>,
  prompt: ApprovalPrompt | undefined,
): Promise<{ choice: ApprovalChoice; reason?: string }> {
  const source = request.source
  const inChat = source && source.platform !== 'cli' && source.platform !== 'local'
  if (inChat && UNATTENDED.has(source.platform)) return { choice: 'deny', reason: `no one to ask on ${source.platform}` }
  if (!prompt && inChat) {
    const delivery = deps.services.get<DeliveryService>(DELIVERY_SERVICE)
    if (!delivery) return { choice: 'deny', reason: 'the gateway delivery service is not available to ask for approval' }
    const { request: full, answer } = deps.pending.add(request, deps.timeoutMs, deps.signal)
    try {
      await delivery.send(source, requestText(full, mayApproveAlways(deps.services, source)))
    } catch (error) {
      deps.pending.settle(full.id, 'deny', `could not ask in the chat: ${errorMessage(error)}`)
    }
    return answer
  }
  // A surface prompt, or the terminal: also registered as pending, so the service can answer it too.
  const { request: full, answer } = deps.pending.add(request, deps.timeoutMs, deps.signal)
  if (prompt) {
    prompt(full).then(
      (choice) => deps.pending.settle(full.id, choice),
      (error) => deps.pending.settle(full.id, 'deny', `the approval prompt failed: ${errorMessage(error)}`),
    )
    return answer
  }
  if (!deps.isTTY()) {
    deps.pending.settle(full.id, 'deny', 'no interactive terminal to ask for approval')
    return answer
  }
  void terminalPrompt(full).then((choice) => deps.pending.settle(full.id, choice), () => deps.pending.settle(full.id, 'deny'))
  return answer
}

async function terminalPrompt(request: ApprovalRequest): Promise<ApprovalChoice> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const text = requestText(request, true).replace(/Reply .*$/s, '')
    const answer = await rl.question(`${text}Run it? [o]nce, [s]ession, [a]lways, [d]eny: `, { signal: AbortSignal.timeout(Math.max(0, request.expiresAt - Date.now())) })
    const key = answer.trim().toLowerCase()[0]
    return key === 'o' || key === 'y' ? 'once' : key === 's' ? 'session' : key === 'a' ? 'always' : 'deny'
  } finally {
    rl.close()
  }
}
