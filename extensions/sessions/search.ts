// Full-text search over messages (FTS5, bm25 ranking). User text is turned into a safe query: every
// word is a quoted term (all required), a trailing `*` keeps a prefix search; `raw` passes FTS5
// syntax through, and a syntax error becomes a one-line usage error.

import { UsageError, type SessionSearchHit, type SessionSearchOptions, type SqliteDatabase } from 'agent/sdk'

/** `deploy "prod db" config*` → `"deploy" "prod" "db" "config"*` (FTS5 operators lose their meaning). */
export function toFtsQuery(text: string): string {
  const terms: string[] = []
  for (const word of text.split(/\s+/)) {
    const prefix = word.endsWith('*')
    const clean = word.replace(/["*]/g, '').trim()
    // Words of punctuation only would be empty phrases after tokenising; they match nothing useful.
    if (!clean || !/[\p{L}\p{N}]/u.test(clean)) continue
    terms.push(`"${clean}"${prefix ? '*' : ''}`)
  }
  return terms.join(' ')
}

interface HitRow {
  id: number
  session_id: string
  role: SessionSearchHit['role']
  created_at: number
  title: string | null
  source: string
  snippet: string
  rank: number
}

export function searchMessages(db: SqliteDatabase, query: string, options: SessionSearchOptions = {}): SessionSearchHit[] {
  const match = options.raw ? query.trim() : toFtsQuery(query)
  if (!match) throw new UsageError('the search query has no words to look for')
  if (options.order !== undefined && options.order !== 'rank' && options.order !== 'recent') throw new UsageError('search order must be "rank" or "recent"')
  const limit = Math.min(500, Math.max(1, Math.floor(options.limit ?? 20)))
  const where = ['messages_fts MATCH ?']
  const params: unknown[] = [match]
  if (options.source) {
    where.push('s.source = ?')
    params.push(options.source)
  }
  if (options.sessionId) {
    where.push('m.session_id = ?')
    params.push(options.sessionId)
  }
  if (options.role) {
    where.push('m.role = ?')
    params.push(options.role)
  }
  const sql = `
    SELECT m.id, m.session_id, m.role, m.created_at, s.title, s.source,
           snippet(messages_fts, 0, '[', ']', '…', 16) AS snippet, bm25(messages_fts) AS rank
    FROM messages_fts
    JOIN messages m ON m.id = messages_fts.rowid
    JOIN sessions s ON s.id = m.session_id
    WHERE ${where.join(' AND ')}
    ORDER BY ${options.order === 'recent' ? 'messages_fts.rowid DESC' : 'rank'}
    LIMIT ?`
  let rows: HitRow[]
  try {
    rows = db.prepare(sql).all(...params, limit) as HitRow[]
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (/fts5|syntax|no such column|unterminated/i.test(message)) throw new UsageError(`invalid search query: ${message}`, { cause: error })
    throw error
  }
  return rows.map((r) => ({
    sessionId: r.session_id,
    messageId: r.id,
    role: r.role,
    snippet: r.snippet.replace(/\s+/g, ' ').trim(),
    createdAt: r.created_at,
    ...(r.title ? { title: r.title } : {}),
    source: r.source,
    rank: r.rank,
  }))
}
