// Which agent session a request runs in. The runtime continues a session from its stored messages,
// so a request may name a session only when that session's transcript is exactly the conversation
// the client is continuing: the session's recorded head (see store.ts). Otherwise (first contact in
// the middle of a conversation, a fork from an older response, a retry after a failed run) a new
// session is seeded with the conversation, so it stays one session from then on.

import { MODELS_SERVICE, SESSIONS_SERVICE, type ChatMessage, type ModelsService, type ModelSelection, type Services, type SessionStore } from 'agent/sdk'
import type { ApiStore } from './store.ts'

export interface SessionPlan {
  sessionId?: string
  /** Context the runtime places before the input without storing it (only when nothing is stored). */
  history?: ChatMessage[]
  /** The run's session will hold the whole conversation: its new head may be recorded. */
  continuable: boolean
}

export interface LinkRequest {
  /** Head key of the conversation being continued (a response id, a chat key); none for a fresh one. */
  head?: string
  /** The conversation up to that head. */
  context: readonly ChatMessage[]
  /** Messages the client adds after the head, before its input. */
  extra: readonly ChatMessage[]
  /** false: the run stores nothing (responses with store=false). */
  persist: boolean
}

export async function linkSession(store: ApiStore, services: Services, request: LinkRequest): Promise<SessionPlan> {
  const everything = () => [...request.context, ...request.extra]
  if (!request.persist) {
    const sessionId = request.head ? await store.peekHead(request.head) : undefined
    return sessionId ? { sessionId, history: [...request.extra], continuable: false } : { history: everything(), continuable: false }
  }
  const sessions = services.get<SessionStore>(SESSIONS_SERVICE)
  // Without a session store nothing is kept: the conversation travels as history every time.
  if (!sessions) return { history: everything(), continuable: false }
  let sessionId = request.head ? await store.claimHead(request.head) : undefined
  // Deleted meanwhile (agent sessions delete …): seed a new one rather than fail the run.
  if (sessionId && !(await sessions.get(sessionId))) sessionId = undefined
  if (sessionId) {
    if (request.extra.length) await sessions.append(sessionId, request.extra)
    return { sessionId, continuable: true }
  }
  const seed = everything()
  if (seed.length === 0) return { continuable: true }
  const created = await sessions.create({ source: 'api_server', ...currentModel(services), messages: seed })
  return { sessionId: created.id, continuable: true }
}

/** The model a run would use, for the seeded session's record (what the runtime records for the sessions it creates). */
function currentModel(services: Services): { model?: string; provider?: string } {
  let selection: ModelSelection | undefined
  try {
    selection = services.get<ModelsService>(MODELS_SERVICE)?.select()
  } catch {
    // Nothing configured: the run itself will say so.
  }
  return selection ? { model: selection.model, provider: selection.provider } : {}
}
