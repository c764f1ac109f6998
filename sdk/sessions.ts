// The session store (`services.require<SessionStore>('sessions')`, extension `sessions`): sessions
// and their messages (in state.db, or in PostgreSQL when `storage.url` is set), titles, lineage
// (compression continuations, branches), usage totals, end reasons and full-text search. Both
// backends behave alike behind this async interface; a resolved write is durable (it survives kill -9).

import { randomHex } from './ids.ts'
import type { ChatMessage, Usage } from './model.ts'

export const SESSIONS_SERVICE = 'sessions'

/** Titles are unique and at most this many characters. */
export const MAX_TITLE_LENGTH = 100

/** Why a session has a parent. */
export type SessionLineage = 'compression' | 'branch' | 'delegation' | (string & {})

const pad = (n: number) => String(n).padStart(2, '0')

/**
 * A new session id, `YYYYMMDD_HHMMSS_<8 hex>` in local time: sortable, readable, unique. The store
 * makes one when a creator names none; the runtime makes its own to know the id before the write
 * that creates the session has committed.
 */
export function newSessionId(now = new Date()): string {
  const date = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}`
  const time = `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`
  return `${date}_${time}_${randomHex(4)}`
}

export interface SessionUsage {
  inputTokens: number
  outputTokens: number
  reasoningTokens: number
  totalTokens: number
  costUsd: number
}

export interface SessionRecord {
  /** `YYYYMMDD_HHMMSS_<8 hex>` unless the creator chose one (the API server's `api-…`). */
  id: string
  title?: string
  parentId?: string
  lineage?: SessionLineage
  /** Platform the session came from: `cli`, `api_server`, `telegram`, `cron`, `delegation` … */
  source: string
  /** Stable platform user id. */
  userId?: string
  chatId?: string
  model?: string
  provider?: string
  /** Selected personality (a key of the top-level `personalities` config). */
  personality?: string
  cwd?: string
  /** Epoch milliseconds. */
  startedAt: number
  updatedAt: number
  endedAt?: number
  /** Why it ended: `compression`, `user_exit`, `reset`, `one_shot`, `error` … */
  endReason?: string
  /** Exit reason of the last run in it (`completed`, `interrupted`, `max_iterations`). */
  lastExitReason?: string
  messageCount: number
  usage: SessionUsage
  apiCalls: number
}

/**
 * A new session. Its first messages may come with their totals and exit reason (AppendOptions), so
 * that a conversation answered in one call is stored without updating the row it just inserted.
 */
export interface NewSession extends AppendOptions {
  /** Caller-chosen id (1-128 characters of [A-Za-z0-9_.:-]); generated when omitted. */
  id?: string
  title?: string
  parentId?: string
  lineage?: SessionLineage
  /** Default `cli`. */
  source?: string
  userId?: string
  chatId?: string
  model?: string
  provider?: string
  personality?: string
  cwd?: string
  /** First messages, stored in the same transaction as the session (one commit for a new conversation). */
  messages?: readonly ChatMessage[]
}

export type SessionUpdate = Partial<Pick<SessionRecord, 'model' | 'provider' | 'personality' | 'cwd' | 'lastExitReason'>>

export interface StoredMessage extends ChatMessage {
  id: number
  sessionId: string
  /** Epoch milliseconds. */
  createdAt: number
}

export interface AppendOptions {
  /** Added to the session's totals in the same transaction. */
  usage?: Partial<Usage>
  apiCalls?: number
  /** Records the run's exit reason in the same transaction (saves a write at the end of a turn). */
  lastExitReason?: string
}

export interface SessionListOptions {
  /** Default 50. */
  limit?: number
  offset?: number
  source?: string
  userId?: string
  chatId?: string
  parentId?: string
  /** Exactly this (sanitised) title. */
  title?: string
  /** Sessions that ended (compressed, closed) are listed too unless false. */
  includeEnded?: boolean
}

export interface SessionSearchOptions {
  /** Default 20, at most 500. */
  limit?: number
  source?: string
  sessionId?: string
  role?: ChatMessage['role']
  /**
   * The query is the backend's own syntax as is: FTS5 on SQLite (AND/OR/NEAR, "phrases", prefix*),
   * web search on PostgreSQL ("phrases", OR, -word). Default: plain words, all required (`word*` a prefix).
   */
  raw?: boolean
  /**
   * `rank` (default): best match first (bm25; ts_rank on PostgreSQL); every matching message is
   * scored, so a word found in half a million messages takes about a second on SQLite. `recent`:
   * newest first, fast for any word.
   */
  order?: 'rank' | 'recent'
}

export interface SessionSearchHit {
  sessionId: string
  messageId: number
  role: ChatMessage['role']
  /** A short excerpt with the matches in [brackets]. */
  snippet: string
  createdAt: number
  title?: string
  source: string
  /** Relevance, lower is better: bm25 on SQLite, ts_rank negated on PostgreSQL (compare within one backend only). */
  rank: number
}

export interface SessionStore {
  create(input?: NewSession): Promise<SessionRecord>
  get(id: string): Promise<SessionRecord | undefined>
  /**
   * A session id, else a title: when numbered variants (`title #2` …) exist the newest of them,
   * else the exact title; either way projected forward to the tip of its compression lineage.
   */
  resolve(idOrTitle: string): Promise<SessionRecord | undefined>
  /** Newest first. */
  list(options?: SessionListOptions): Promise<SessionRecord[]>
  /** The most recently active session matching the filter. */
  latest(options?: Pick<SessionListOptions, 'source' | 'userId' | 'chatId'>): Promise<SessionRecord | undefined>
  /** Appends messages in one transaction (durable when resolved). */
  append(sessionId: string, messages: readonly ChatMessage[], options?: AppendOptions): Promise<StoredMessage[]>
  /** Messages in order; `limit` keeps the last N. */
  messages(sessionId: string, options?: { limit?: number }): Promise<StoredMessage[]>
  /**
   * Sets (or with null/empty clears) the title. Control, zero-width and bidi characters are removed,
   * whitespace collapsed; over 100 characters or a title held by another session is an error
   * (a compression ancestor's title is transferred instead). Returns the stored title.
   */
  setTitle(sessionId: string, title: string | null): Promise<string | undefined>
  /**
   * An automatic title: set only while the session has none (a title set by hand, even while this
   * one was being worked out, is kept), passed through the known-secrets redactor, made unique with
   * ` (2)`, ` (3)` …. Returns the stored title, or undefined when none was set.
   */
  titleIfUntitled(sessionId: string, title: string): Promise<string | undefined>
  /** `base #N` with N one above the highest in use (the unnumbered original counts as #1). */
  nextTitle(base: string): Promise<string>
  update(sessionId: string, fields: SessionUpdate): Promise<void>
  addUsage(sessionId: string, usage: Partial<Usage>, apiCalls?: number): Promise<void>
  end(sessionId: string, reason: string): Promise<void>
  /** Clears the end of a session that is continued. */
  reopen(sessionId: string): Promise<void>
  /** The newest compression continuation of a session, following the chain (itself if none). */
  tip(sessionId: string): Promise<SessionRecord | undefined>
  search(query: string, options?: SessionSearchOptions): Promise<SessionSearchHit[]>
  /** Deletes a session and its messages; children keep living without a parent. */
  delete(sessionId: string): Promise<boolean>
}
