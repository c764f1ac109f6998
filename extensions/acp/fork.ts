// `session/fork`: a new session that starts as a branch of another — the stored conversation (its
// newest continuation, when compressed) copied into a new stored session (parent_id, lineage
// `branch`), with the source's model and mode. A source that is open but has no stored turn yet
// forks into an empty session. Both go on separately.

import type { SessionStore } from 'agent/sdk'
import { unknownSession } from './errors.ts'
import { newSessionId, type LiveSession, type LiveSessions } from './live-sessions.ts'
import type { ModelOptions } from './model-option.ts'

export async function forkSession(deps: { store: SessionStore; live: LiveSessions; models: ModelOptions }, sourceId: string, cwd: string): Promise<LiveSession> {
  const { store, live, models } = deps
  const source = live.get(sourceId)
  const found = await store.get(sourceId)
  if (!found && !source) throw unknownSession(sourceId)
  const tip = found?.endReason === 'compression' ? ((await store.tip(found.id)) ?? found) : found
  const messages = tip ? (await store.messages(tip.id)).map(({ role, content, toolCalls, toolCallId, name, reasoning }) => ({ role, content, toolCalls, toolCallId, name, reasoning })) : []
  const session = live.open({ id: newSessionId(), cwd, stored: false })
  const provider = source?.provider ?? found?.provider
  const model = source?.model ?? found?.model
  if (provider && model) models.restore(session, { provider, model })
  session.mode = source?.mode
  if (found) {
    await store.create({ id: session.id, source: 'acp', cwd, parentId: found.id, lineage: 'branch', messages, ...(session.model ? { provider: session.provider, model: session.model } : {}) })
    session.stored = true
  }
  return session
}
