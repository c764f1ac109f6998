// The sessions an editor has open on this connection. The ACP session id is the stored session's
// id, so an editor can load it again after a restart; the stored session is created with the first
// prompt (an editor opens many threads it never uses). Only one turn runs per session at a time.

import { randomHex, type ApprovalMode, type ToolDefinition, type Usage } from 'agent/sdk'

export interface RunningTurn {
  controller: AbortController
  cancelled: boolean
  /** Settles when the turn has answered (or failed). */
  settled: Promise<unknown>
}

export interface LiveSession {
  id: string
  cwd: string
  /** The session exists in the store (loaded, or created by a first prompt). */
  stored: boolean
  turn?: RunningTurn
  turns: number
  /** Chosen with session/set_config_option (model); unset: the configured model. */
  provider?: string
  model?: string
  /** Chosen with session/set_mode; unset: approvals.mode. */
  mode?: ApprovalMode
  /** `/tools enable|disable` in this session, by tool or toolset name. */
  tools: Map<string, boolean>
  /** Totals of the turns run on this connection. */
  usage: SessionUsageTotals
  /** The editor's MCP servers for this session: their tools, and how to end them. */
  mcp?: { tools: ToolDefinition[]; close(): Promise<void> }
}

export interface SessionUsageTotals {
  inputTokens: number
  outputTokens: number
  reasoningTokens: number
  costUsd: number
  apiCalls: number
  /** Prompt tokens of the last model call: how full the context is. */
  contextTokens: number
  startedAt: number
}

/** One model call's usage added to the session's totals; its tokens are what the context holds now. */
export function addUsage(session: LiveSession, usage: Usage): void {
  const totals = session.usage
  totals.inputTokens += usage.inputTokens
  totals.outputTokens += usage.outputTokens
  totals.reasoningTokens += usage.reasoningTokens ?? 0
  totals.costUsd += usage.costUsd ?? 0
  totals.apiCalls++
  totals.contextTokens = usage.inputTokens + usage.outputTokens
}

const pad = (n: number) => String(n).padStart(2, '0')

/** Same shape as the session store's own ids (`YYYYMMDD_HHMMSS_<8 hex>`, local time). */
export function newSessionId(now = new Date()): string {
  return `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}_${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}_${randomHex(4)}`
}

export class LiveSessions {
  private readonly sessions = new Map<string, LiveSession>()

  open(session: Pick<LiveSession, 'id' | 'cwd' | 'stored'>): LiveSession {
    const existing = this.sessions.get(session.id)
    if (existing) {
      existing.cwd = session.cwd
      existing.stored ||= session.stored
      return existing
    }
    const usage = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, costUsd: 0, apiCalls: 0, contextTokens: 0, startedAt: Date.now() }
    const live: LiveSession = { ...session, turns: 0, tools: new Map(), usage }
    this.sessions.set(live.id, live)
    return live
  }

  get(id: string): LiveSession | undefined {
    return this.sessions.get(id)
  }

  /** Stops a session's running turn; true if one was running. */
  cancel(id: string, reason: string): boolean {
    const turn = this.sessions.get(id)?.turn
    if (!turn) return false
    turn.cancelled = true
    turn.controller.abort(new Error(reason))
    return true
  }

  close(id: string): void {
    this.cancel(id, 'the session was closed')
    void this.sessions.get(id)?.mcp?.close().catch(() => undefined)
    this.sessions.delete(id)
  }

  /** Ends every session's MCP servers (the connection is closing). */
  async closeServers(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.mcp?.close().catch(() => undefined)))
  }

  /** Cancels every running turn and waits (bounded) for them to answer. */
  async cancelAll(reason: string, waitMs: number): Promise<void> {
    const settling: Array<Promise<unknown>> = []
    for (const session of this.sessions.values()) {
      if (session.turn) settling.push(session.turn.settled.catch(() => undefined))
      this.cancel(session.id, reason)
    }
    if (settling.length === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.all(settling), new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))])
    clearTimeout(timer)
  }
}
