// Compressing a conversation: the older turns go to the summary model (`compression.summary_*`,
// resolved through the models service as task `compression`), the conversation continues in a new
// session whose parent is the old one (lineage `compression`, title numbered `title #N`), and the
// old session ends with reason `compression`. Used by the loop near the context limit and by
// runtime.compress() for `/compress`.

import { AgentError, errorMessage, observeLater, SESSIONS_SERVICE, type ChatMessage, type CompressionOutcome, type ExtensionApi, type ModelClient, type SessionStore } from 'agent/sdk'
import { splitForCompression, summarise, summaryMessage } from './compress.ts'
import { compressionSettings, estimateTokens, type CompressionSettings } from './context.ts'
import { repairTranscript, type Conversation } from './conversation.ts'
import { resolveClient } from './models.ts'

export interface CompactOptions {
  settings: CompressionSettings
  signal?: AbortSignal
  /** The conversation's own model: used when no summary model can be resolved. */
  primary?: ModelClient | (() => Promise<ModelClient>)
}

async function summaryClient(api: ExtensionApi<any>, options: CompactOptions): Promise<ModelClient> {
  const s = options.settings
  try {
    return await resolveClient(api, { task: 'compression', provider: s.summaryProvider, model: s.summaryModel, baseUrl: s.summaryBaseUrl, apiKey: s.summaryApiKey, fallback: false })
  } catch (error) {
    // An explicitly configured summary endpoint that fails to resolve is a configuration problem.
    if (!options.primary || s.summaryBaseUrl || s.summaryProvider || s.summaryModel) throw error
    api.log.debug(`no summary model (${errorMessage(error)}); summarising with the conversation's model`)
    return typeof options.primary === 'function' ? options.primary() : options.primary
  }
}

const contextTokens = (conv: Conversation) => estimateTokens([...conv.summaries.map((s): ChatMessage => ({ role: 'system', content: s })), ...conv.messages])

export async function compressConversation(api: ExtensionApi<any>, conv: Conversation, options: CompactOptions): Promise<CompressionOutcome> {
  const beforeMessages = conv.messages.length
  const beforeTokens = contextTokens(conv)
  const split = splitForCompression(conv.messages, options.settings.keepRecent)
  if (split.head.length === 0) {
    return { compressed: false, reason: 'there is not enough conversation to compress yet', sessionId: conv.sessionId, beforeMessages, afterMessages: beforeMessages, beforeTokens, afterTokens: beforeTokens }
  }
  const client = await summaryClient(api, options)
  const summary = await summarise({ client, summaries: conv.summaries, head: split.head, maxTokens: options.settings.summaryMaxTokens, signal: options.signal })
  if (summary.fallback) api.log.warn(`compression: ${summary.fallback}; kept a digest of the earlier requests instead`)
  const parentId = conv.store ? conv.sessionId : undefined
  const text = summaryMessage(summary.text, parentId)
  const tail = repairTranscript(split.tail)

  if (conv.store && conv.session) {
    const store = conv.store
    const parent = conv.session
    const title = parent.title ? await store.nextTitle(parent.title) : undefined
    const child = await store.create({
      parentId: parent.id,
      lineage: 'compression',
      title,
      source: parent.source,
      userId: parent.userId,
      chatId: parent.chatId,
      model: parent.model,
      provider: parent.provider,
      personality: parent.personality,
      cwd: parent.cwd,
    })
    await store.append(child.id, [{ role: 'system', content: text }, ...tail], { usage: summary.usage, apiCalls: 1 })
    await store.end(parent.id, 'compression')
    conv.sessionId = child.id
    conv.session = (await store.get(child.id)) ?? child
  }
  conv.summaries = [text]
  conv.messages = tail
  observeLater(api, { type: 'session.compressed', sessionId: conv.sessionId, parentSessionId: parentId, beforeMessages, afterMessages: tail.length })
  return {
    compressed: true,
    sessionId: conv.sessionId,
    ...(parentId ? { parentSessionId: parentId } : {}),
    beforeMessages,
    afterMessages: tail.length,
    beforeTokens,
    afterTokens: contextTokens(conv),
  }
}

/** `/compress` on a stored session: compresses its tip regardless of how full the context is. */
export async function compressStored(api: ExtensionApi<any>, sessionId: string, signal?: AbortSignal): Promise<CompressionOutcome> {
  const store = api.services.get<SessionStore>(SESSIONS_SERVICE)
  if (!store) throw new AgentError('E_STATE', 'cannot compress: the sessions extension is not loaded')
  const found = await store.get(sessionId)
  if (!found) throw new AgentError('E_NOT_FOUND', `no session "${sessionId}"`)
  const session = (await store.tip(found.id)) ?? found
  const stored = await store.messages(session.id)
  const conv: Conversation = {
    sessionId: session.id,
    store,
    session,
    summaries: stored.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : '')),
    messages: repairTranscript(stored.filter((m) => m.role !== 'system').map(({ id: _i, sessionId: _s, createdAt: _c, ...m }) => m)),
  }
  const primary = () => resolveClient(api, { provider: session.provider, model: session.model })
  return compressConversation(api, conv, { settings: compressionSettings(api.settings), signal, primary })
}
