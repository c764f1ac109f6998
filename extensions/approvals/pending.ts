// Pending approvals: requests waiting for `/approve` or `/deny` (or any surface answering through the
// approvals service), oldest first, each denied when its timeout passes.

import { randomHex, type ApprovalChoice, type ApprovalRequest } from 'agent/sdk'

interface Entry {
  request: ApprovalRequest
  settle: (answer: { choice: ApprovalChoice; reason?: string }) => void
  timer: NodeJS.Timeout
}

export class PendingApprovals {
  private readonly entries: Entry[] = []

  /** Registers a request; resolves with the answer, or `deny` at `timeoutMs` or when `signal` (the run) aborts. */
  add(request: Omit<ApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>, timeoutMs: number, signal?: AbortSignal): { request: ApprovalRequest; answer: Promise<{ choice: ApprovalChoice; reason?: string }> } {
    const now = Date.now()
    const full: ApprovalRequest = { ...request, id: `appr_${randomHex(4)}`, createdAt: now, expiresAt: now + timeoutMs }
    let resolveAnswer!: Entry['settle']
    const answer = new Promise<{ choice: ApprovalChoice; reason?: string }>((resolve) => (resolveAnswer = resolve))
    const onAbort = () => this.settle(full.id, 'deny', 'the run was stopped')
    const settle: Entry['settle'] = (result) => {
      signal?.removeEventListener('abort', onAbort)
      resolveAnswer(result)
    }
    const timer = setTimeout(() => this.settle(full.id, 'deny', `no answer within ${Math.round(timeoutMs / 1000)} s`), timeoutMs)
    this.entries.push({ request: full, settle, timer })
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
    return { request: full, answer }
  }

  list(filter: { sessionId?: string; platform?: string; chatId?: string } = {}): ApprovalRequest[] {
    return this.entries
      .map((e) => e.request)
      .filter((r) => (filter.sessionId === undefined || r.sessionId === filter.sessionId) && (filter.platform === undefined || r.source?.platform === filter.platform) && (filter.chatId === undefined || r.source?.chatId === filter.chatId))
  }

  settle(id: string, choice: ApprovalChoice, reason?: string): boolean {
    const index = this.entries.findIndex((e) => e.request.id === id)
    if (index === -1) return false
    const [entry] = this.entries.splice(index, 1)
    clearTimeout(entry!.timer)
    entry!.settle({ choice, reason })
    return true
  }

  denyAll(reason: string, filter?: { sessionId?: string }): number {
    const ids = this.list(filter).map((r) => r.id)
    for (const id of ids) this.settle(id, 'deny', reason)
    return ids.length
  }
}
