// What the API server keeps: stored responses (LRU-evicted past the capacity, surviving restarts),
// conversation names pointing at the latest response of their chain, and the head of each agent
// session the API server continues (the response id, or chat-conversation key, its stored transcript
// ends at). One async interface, two stores picked by the storage backend at first use: SQLite
// (store-sqlite.ts, state.db) and PostgreSQL (store-pg.ts, shared by several instances). What both
// do alike (redaction before storing, reading rows back) lives here once.

import { DATABASE_SERVICE, redactDeep, STORAGE_SERVICE, type ChatMessage, type DatabaseService, type Services, type StorageService } from 'agent/sdk'

export interface StoredResponse {
  id: string
  /** The response object as the API returns it. */
  response: Record<string, unknown>
  /** The conversation through this response (history, input, answer): what a chained request continues. */
  transcript: ChatMessage[]
  instructions?: string
  sessionId?: string
  conversation?: string
  /** The input items as the client sent them (ids filled in), for input_items and item_reference. */
  input?: unknown[]
}

export interface ApiStore {
  /** Opens (and migrates) now (adapter start), so the first request does not pay. */
  warm(): Promise<void>
  /** Writes what is written behind (heads, read-stamps) now: the adapter stops. */
  flush(): Promise<void>
  /** A stored response; reading it makes it the most recently used. */
  get(id: string): Promise<StoredResponse | undefined>
  /** Stores (or replaces) a response, moves its conversation's name to it, evicts past capacity; resolves once committed. */
  put(record: StoredResponse, createdAt: number): Promise<void>
  /** False when there was no such response. */
  delete(id: string): Promise<boolean>
  /** Latest response id of a named conversation; `lost` when that response was deleted or evicted. */
  conversationHead(name: string): Promise<string | 'lost' | undefined>
  /** The input items stored with a response (undefined when unknown or stored before they were kept). */
  inputItems(id: string): Promise<unknown[] | undefined>
  /** The session whose transcript ends at `head`, without taking it (runs that store nothing). */
  peekHead(head: string): Promise<string | undefined>
  /**
   * Takes the session whose stored transcript ends exactly at `head` (a response id, or the key of a
   * chat conversation), so one continuation at a time continues it — across instances on
   * PostgreSQL. Undefined when `head` is no session's head (forked, superseded, taken by a request
   * running now, or its run failed): the caller seeds a new session instead.
   */
  claimHead(head: string): Promise<string | undefined>
  /**
   * Records that `sessionId`'s transcript now ends at `head`, once `stored` (the session's last
   * write) has landed; never when it failed. Known to this instance at once: a claim of `head` here
   * waits for it (the client's next turn may come before that write is committed).
   */
  setHead(head: string, sessionId: string, stored?: Promise<unknown>): Promise<void>
}

/** The API server's store, and the hold on a named conversation while a request runs it. */
export interface ApiStoreService extends ApiStore {
  /**
   * Holds the conversation `name` for one request, across the instances sharing the storage (a
   * lease, renewed while held): undefined when another request holds it. Resolves with the release.
   */
  holdConversation(name: string): Promise<(() => Promise<void>) | undefined>
}

export interface StoreOptions {
  capacity: number
  /** Housekeeping failed (heads or read-stamps written behind, eviction): lost continuity or a late eviction at worst. */
  onFlushError: (error: unknown) => void
  /** The current known-secrets redactor: stored responses and transcripts go through it. */
  redactor: () => (text: string) => string
}

/** Session heads kept; older ones are pruned (a conversation idle that long is re-seeded into a new session). */
export const HEADS_MAX = 10_000
export const HEADS_PRUNE_EVERY = 500
/** A conversation's hold outlives an instance that died holding it by at most this long. */
export const CONVERSATION_HOLD_MS = 30_000
/** How long head and read-stamp writes may wait to be batched into one commit (SQLite; read-stamps on PostgreSQL). */
export const FLUSH_MS = 500

/** What the client sent (history, input, instructions) may hold a secret the agent knows: never stored. */
export function redactRecord(record: StoredResponse, redact: (text: string) => string): StoredResponse {
  return {
    ...record,
    response: redactDeep(record.response, redact),
    transcript: redactDeep(record.transcript, redact),
    instructions: record.instructions === undefined ? undefined : redact(record.instructions),
    input: record.input === undefined ? undefined : redactDeep(record.input, redact),
  }
}

/** The columns of a stored response, as both stores write them. */
export function responseColumns(record: StoredResponse): [string, string, string | null, string | null, string | null, string | null] {
  return [
    JSON.stringify(record.response),
    JSON.stringify(record.transcript),
    record.instructions ?? null,
    record.sessionId ?? null,
    record.conversation ?? null,
    record.input === undefined ? null : JSON.stringify(record.input),
  ]
}

export interface ResponseRow {
  response: string
  transcript: string
  instructions: string | null
  session_id: string | null
  conversation: string | null
}

/** A stored row read back; undefined when it is corrupt (it can never be served or chained: the caller drops it). */
export function parseResponseRow(id: string, row: ResponseRow): StoredResponse | undefined {
  try {
    const response = JSON.parse(row.response) as Record<string, unknown>
    const transcript = JSON.parse(row.transcript) as ChatMessage[]
    return { id, response, transcript, instructions: row.instructions ?? undefined, sessionId: row.session_id ?? undefined, conversation: row.conversation ?? undefined }
  } catch {
    return undefined
  }
}

/** The stored input column read back: a list, or undefined. */
export function parseInputItems(text: string | null | undefined): unknown[] | undefined {
  if (!text) return undefined
  try {
    const items = JSON.parse(text)
    return Array.isArray(items) ? items : undefined
  } catch {
    return undefined
  }
}

/** The store of the storage backend, picked (and its module loaded) at first use. */
export function createApiStore(services: Services, options: StoreOptions): ApiStoreService {
  let picked: Promise<ApiStore> | undefined
  const pick = (): Promise<ApiStore> =>
    (picked ??= (async () => {
      const storage = services.require<StorageService>(STORAGE_SERVICE)
      if (storage.backend === 'postgres') return new (await import('./store-pg.ts')).PgApiStore(() => storage.postgres(), options)
      return new (await import('./store-sqlite.ts')).SqliteApiStore(() => services.require<DatabaseService>(DATABASE_SERVICE), options)
    })().catch((error) => {
      picked = undefined
      throw error
    }))
  // Held here: the lease is per process (its holder renews it), so two requests of this process must not share it.
  const held = new Set<string>()
  const holdConversation = async (name: string) => {
    if (held.has(name)) return undefined
    held.add(name)
    const lease = `api-conversation:${name}`
    const leases = services.require<StorageService>(STORAGE_SERVICE).leases
    let taken = false
    try {
      taken = await leases.acquire(lease, CONVERSATION_HOLD_MS)
    } finally {
      if (!taken) held.delete(name)
    }
    if (!taken) return undefined
    const renewal = setInterval(() => void leases.acquire(lease, CONVERSATION_HOLD_MS).catch(() => undefined), CONVERSATION_HOLD_MS / 3)
    renewal.unref()
    let released = false
    return async () => {
      if (released) return
      released = true
      clearInterval(renewal)
      try {
        await leases.release(lease)
      } finally {
        held.delete(name)
      }
    }
  }
  return {
    holdConversation,
    warm: async () => (await pick()).warm(),
    // Nothing picked: nothing was written behind.
    flush: async () => (picked ? picked.then((store) => store.flush(), () => undefined) : undefined),
    get: async (id) => (await pick()).get(id),
    put: async (record, createdAt) => (await pick()).put(redactRecord(record, options.redactor()), createdAt),
    delete: async (id) => (await pick()).delete(id),
    conversationHead: async (name) => (await pick()).conversationHead(name),
    inputItems: async (id) => (await pick()).inputItems(id),
    peekHead: async (head) => (await pick()).peekHead(head),
    claimHead: async (head) => (await pick()).claimHead(head),
    setHead: async (head, sessionId, stored) => (await pick()).setHead(head, sessionId, stored),
  }
}
