// Sending: an answer's parts and a spoken reply (uploaded to the media repository, sent as m.audio)
// through the running client, a delivery from a process where the gateway is not running (one
// client, no sync), and which failed sends may wait in the gateway's outbox. Nothing goes to an
// end-to-end encrypted room in plain text.

import { AgentError, ConfigError, DeliveryDeferred, type Logger, type Settings } from 'agent/sdk'
import type { MatrixClient } from 'matrix-js-sdk'
import { closableFetch, createSessionClient, describeFailure, routeSdkLogs, signIn, type Sdk, type Session } from './client.ts'
import type { messageContents } from './format.ts'
import { credentialsFrom, homeserverUrl } from './settings.ts'

/** The running connection, as far as sending goes. */
export interface Sender {
  sdk: Sdk
  client: MatrixClient
  fetch: ReturnType<typeof closableFetch>
  session: Session
  /** Rejected when the client is closed: every send races it (the SDK's queue would keep it forever). */
  abandoned: Promise<never>
}

type Contents = ReturnType<typeof messageContents>

/** A 401 (logged out), 429, 5xx or network failure may pass: deferred to the outbox; anything else is final. */
const deliveryFailure = (roomId: string) => (error: unknown): never => {
  if (AgentError.isInstance(error)) throw error
  const failure = error as { httpStatus?: number; data?: { retry_after_ms?: unknown } }
  const status = typeof failure?.httpStatus === 'number' ? failure.httpStatus : undefined
  const reason = `cannot send to Matrix room ${roomId}: ${describeFailure(error)}`
  if (status === undefined || status === 401 || status === 429 || status >= 500) {
    const retryAfter = typeof failure.data?.retry_after_ms === 'number' ? failure.data.retry_after_ms : undefined
    throw new DeliveryDeferred(reason, { cause: error, ...(status === 429 ? { code: 'E_RATE_LIMITED' as const } : {}), ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) })
  }
  throw new AgentError('E_DELIVERY', reason, { cause: error })
}

function refuseEncrypted(state: Sender, chatId: string): void {
  if (state.client.getRoom(chatId)?.hasEncryptionStateEvent()) throw new AgentError('E_DELIVERY', `Matrix room ${chatId} is end-to-end encrypted; encrypted rooms are not supported`)
}

/** The parts of an answer, in order; `key` is the outbox's idempotency key, if any. */
export async function sendParts(state: Sender, chatId: string, contents: Contents, key: string | undefined): Promise<void> {
  refuseEncrypted(state, chatId)
  // The outbox's key as transaction id: a retry of a send the homeserver already took is not shown twice.
  for (const [i, content] of contents.entries()) {
    const sending = state.client.sendEvent(chatId, state.sdk.EventType.RoomMessage, content as never, key ? `agent.${key}.${i}` : undefined)
    await Promise.race([sending, state.abandoned]).catch(deliveryFailure(chatId))
  }
}

/** A spoken reply (/voice), before the text: uploaded to the media repository, sent as m.audio. */
export async function sendAudio(
  state: Sender,
  chatId: string,
  audio: { data: Uint8Array; mimeType: string; filename: string; voice: boolean },
  threadId: string | undefined,
  replyTo: (threadId: string) => string,
): Promise<void> {
  refuseEncrypted(state, chatId)
  const upload = await state.fetch.fetch(`${state.client.getHomeserverUrl().replace(/\/+$/, '')}/_matrix/media/v3/upload?filename=${encodeURIComponent(audio.filename)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${state.session.accessToken}`, 'content-type': audio.mimeType },
    body: Buffer.from(audio.data),
  })
  const uploaded = (await upload.json().catch(() => ({}))) as { content_uri?: unknown }
  if (!upload.ok || typeof uploaded.content_uri !== 'string') throw new AgentError('E_DELIVERY', `the Matrix homeserver refused the audio upload (HTTP ${upload.status})`)
  const content = {
    msgtype: 'm.audio',
    body: audio.filename,
    url: uploaded.content_uri,
    info: { mimetype: audio.mimeType, size: audio.data.byteLength },
    ...(audio.voice ? { 'org.matrix.msc3245.voice': {} } : {}),
    ...(threadId ? { 'm.relates_to': { rel_type: 'm.thread', event_id: threadId, is_falling_back: true, 'm.in_reply_to': { event_id: replyTo(threadId) } } } : {}),
  }
  await Promise.race([state.client.sendEvent(chatId, state.sdk.EventType.RoomMessage, content as never), state.abandoned]).catch(deliveryFailure(chatId))
}

/** Delivery from a process where the adapter is not running (cron in a CLI process): one client, no sync. */
export async function sendOnce(settings: Settings, log: () => Logger, roomId: string, contents: Contents): Promise<void> {
  const baseUrl = homeserverUrl(settings)
  const credentials = credentialsFrom(settings)
  if (credentials.kind !== 'token') throw new ConfigError('Matrix delivery outside a running gateway needs MATRIX_ACCESS_TOKEN (a password login would create a device per message)')
  const sdk = await import('matrix-js-sdk')
  await routeSdkLogs((line) => log().debug(`sdk: ${line}`))
  const fetch = closableFetch()
  try {
    const session = await signIn(sdk, { baseUrl, credentials, home: settings.home, fetch: fetch.fetch })
    const client = createSessionClient(sdk, baseUrl, session, fetch.fetch)
    const encrypted = await client.getStateEvent(roomId, 'm.room.encryption', '').then(
      () => true,
      (error: { errcode?: string }) => {
        if (error?.errcode === 'M_NOT_FOUND') return false
        throw new AgentError('E_DELIVERY', `cannot send to Matrix room ${roomId}: ${describeFailure(error)}`, { cause: error })
      },
    )
    if (encrypted) throw new AgentError('E_DELIVERY', `Matrix room ${roomId} is end-to-end encrypted; encrypted rooms are not supported`)
    for (const content of contents) await client.sendEvent(roomId, sdk.EventType.RoomMessage, content as never).catch(deliveryFailure(roomId))
  } finally {
    fetch.close()
  }
}
