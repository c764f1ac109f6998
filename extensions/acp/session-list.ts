// `session/list`: the stored ACP sessions, newest first, optionally of one cwd, 50 a page behind an
// opaque cursor (the store offset, base64url JSON). The cwd filter is applied here, so a bounded
// number of store pages is scanned for a full page.

import { isAbsolute } from 'node:path'
import type { SessionStore } from 'agent/sdk'
import type { ListSessionsResponse, SessionInfo } from '@agentclientprotocol/sdk/unstable'
import { badParams } from './errors.ts'

const LIST_PAGE = 50
const MAX_PAGES = 20

const encodeCursor = (offset: number) => Buffer.from(JSON.stringify({ offset })).toString('base64url')

function decodeCursor(cursor: string | null | undefined): number {
  if (!cursor) return 0
  try {
    const offset = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset?: unknown }).offset
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) return offset
  } catch {
    // fall through
  }
  throw badParams('cursor is not one this agent gave out')
}

export async function listSessions(store: SessionStore, cwd: string | undefined, cursor: string | null | undefined): Promise<ListSessionsResponse> {
  if (cwd !== undefined && !isAbsolute(cwd)) throw badParams(`cwd must be an absolute path (got "${cwd}")`)
  let offset = decodeCursor(cursor)
  const sessions: SessionInfo[] = []
  for (let pages = 0; pages < MAX_PAGES && sessions.length < LIST_PAGE; pages++) {
    const page = await store.list({ source: 'acp', includeEnded: false, limit: LIST_PAGE, offset })
    offset += page.length
    for (const record of page) {
      if (cwd !== undefined && record.cwd !== cwd) continue
      sessions.push({ sessionId: record.id, cwd: record.cwd ?? '/', title: record.title ?? null, updatedAt: new Date(record.updatedAt).toISOString() })
    }
    if (page.length < LIST_PAGE) return { sessions }
  }
  return { sessions, nextCursor: encodeCursor(offset) }
}
