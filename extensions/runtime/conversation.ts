// The live state of a run: which session it writes to (if any), the context summaries and the
// messages sent to the model. Opening it loads a stored session (following a compressed one to its
// continuation), repairs a transcript cut short by a crash, or creates the session.

import { AgentError, newSessionId, randomHex, SESSIONS_SERVICE, type AppendOptions, type ChatMessage, type ExtensionApi, type RunRequest, type SessionRecord, type SessionStore } from 'agent/sdk'

export interface Conversation {
  sessionId: string
  /** The store this run writes to; undefined for `persist: false` (or no sessions extension). */
  store?: SessionStore
  session?: SessionRecord
  /** Context summaries of compressed turns (stored as `system` messages). */
  summaries: string[]
  /** Everything after the system prompt, in order. */
  messages: ChatMessage[]
  /** The run's input is already stored (with the session it created) and in `messages`. */
  inputStored?: boolean
  /**
   * The write creating a new session, when it was queued without waiting for its commit: the run
   * awaits it before its next write (so a failed create still fails the run), and the commit
   * happens while the model call is on its way instead of before it.
   */
  creating?: Promise<unknown>
  /**
   * A new session's create not queued yet (RunRequest.storeBehind): the run's first write queues it
   * (queueCreate), so that a run answered without tools commits its session, input and answer in
   * one transaction behind the answer, and nothing waits for a commit before the model call.
   * Given `first` (the run's first write is also its last), the session is created with those
   * messages and totals in the same insert.
   */
  deferredCreate?: (first?: FirstWrite) => Promise<unknown>
}

/** Messages written with a session's create, and their totals. */
export type FirstWrite = AppendOptions & { messages: readonly ChatMessage[] }

/** Queues a deferred create, if any (holding `first`); `creating` then follows it as it does any new session's. */
export function queueCreate(conversation: Conversation, first?: FirstWrite): void {
  const create = conversation.deferredCreate
  if (!create) return
  conversation.deferredCreate = undefined
  conversation.creating = create(first)
  // Awaited by the run (or its stored promise); until then a failure must not count as unhandled.
  conversation.creating.catch(() => undefined)
}

/** A stored transcript as the model must see it: every tool call answered, no orphan results. */
export function repairTranscript(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    if (m.role === 'tool') {
      // Results are placed right after their assistant message below; anything else is an orphan.
      continue
    }
    out.push(m)
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const results = new Map<string, ChatMessage>()
      for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) {
        const r = messages[j]!
        if (r.toolCallId && !results.has(r.toolCallId)) results.set(r.toolCallId, r)
      }
      for (const call of m.toolCalls) {
        out.push(results.get(call.id) ?? { role: 'tool', toolCallId: call.id, name: call.name, content: 'Error: this tool call was interrupted before it returned a result.' })
      }
    }
  }
  return out
}

function strip(m: ChatMessage): ChatMessage {
  const message: ChatMessage = { role: m.role, content: m.content }
  if (m.toolCalls?.length) message.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }))
  if (m.toolCallId) message.toolCallId = m.toolCallId
  if (m.name) message.name = m.name
  if (m.reasoning) message.reasoning = m.reasoning
  return message
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
  return ''
}

/** Splits loaded messages into context summaries (system) and the conversation proper. */
function separate(messages: readonly ChatMessage[]): { summaries: string[]; rest: ChatMessage[] } {
  const summaries: string[] = []
  const rest: ChatMessage[] = []
  for (const m of messages) {
    if (m.role === 'system') summaries.push(textOf(m.content))
    else rest.push(strip(m))
  }
  return { summaries, rest }
}

/** Loads or creates the run's session. A new session is created with `input` (if any: a resumed run has none) as its first message, in one commit. */
export async function openConversation(api: ExtensionApi<any>, request: RunRequest, defaults: { cwd: string; model: string; provider: string; input: ChatMessage | undefined }): Promise<Conversation> {
  const persist = request.persist !== false
  const store = api.services.get<SessionStore>(SESSIONS_SERVICE)
  if (!store && request.sessionId) throw new AgentError('E_STATE', 'cannot continue a session: the sessions extension is not loaded')
  if (!store && persist) api.log.warn('the sessions extension is not loaded; this run is not stored')

  let session: SessionRecord | undefined
  let loaded: ChatMessage[] = []
  if (request.sessionId && store) {
    const found = await store.get(request.sessionId)
    if (!found) throw new AgentError('E_NOT_FOUND', `no session "${request.sessionId}"`)
    // A compressed session lives on in its continuation.
    session = found.endReason === 'compression' ? ((await store.tip(found.id)) ?? found) : found
    loaded = await store.messages(session.id)
    if (persist && session.endedAt !== undefined) await store.reopen(session.id)
  }
  const { summaries, rest } = separate(loaded)
  const history = separate(request.history ?? [])
  const conversation: Conversation = {
    sessionId: session?.id ?? request.sessionId ?? `ephemeral_${randomHex(6)}`,
    summaries: [...summaries, ...history.summaries],
    messages: repairTranscript([...rest, ...history.rest]),
  }
  if (session) conversation.session = session
  if (persist && store) {
    conversation.store = store
    if (!session) {
      const create = {
        title: request.title,
        source: request.source?.platform ?? 'cli',
        userId: request.source?.userId,
        chatId: request.source?.chatId,
        model: defaults.model,
        provider: defaults.provider,
        personality: request.personality || undefined,
        cwd: defaults.cwd,
        messages: defaults.input ? [defaults.input] : [],
      }
      if (request.title) {
        // A title can be taken already: that refusal comes before the model is called.
        const created = await store.create(create)
        conversation.session = created
        conversation.sessionId = created.id
      } else {
        // Nothing else can refuse a new untitled session but the database itself: its commit
        // (about a tenth of a millisecond) overlaps the model call rather than preceding it, or
        // joins the run's last write behind the answer.
        const id = newSessionId()
        conversation.sessionId = id
        conversation.deferredCreate = (first) => store.create({ ...create, id, ...first, messages: first ? [...create.messages, ...first.messages] : create.messages }).then((created) => {
          conversation.session = created
        })
        if (!request.storeBehind) queueCreate(conversation)
      }
      if (defaults.input) conversation.messages.push(defaults.input)
      conversation.inputStored = true
    }
  }
  return conversation
}
