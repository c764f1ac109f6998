// The PostgreSQL store's compound statements: a new session with its first messages, an append,
// the lineage walks (one round trip however long the chain); and how a PostgreSQL error is
// recognised under the wrappers it may arrive in.

import { MAX_HOPS } from './titles.ts'

/** Every column of schema.ts (not seq, which is PostgreSQL's alone). */
export const SESSION_COLUMNS = `id, title, parent_id, lineage, source, user_id, chat_id, model, provider, personality, cwd, started_at,
  updated_at, ended_at, end_reason, last_exit_reason, message_count, input_tokens, output_tokens, reasoning_tokens, cost_usd, api_calls`

/** Every column of a message but the search vector (large, and never read back). */
export const MESSAGE_COLUMNS = 'id, session_id, role, content, parts, tool_calls, tool_call_id, name, reasoning, created_at'

// A session's writes are single statements (each round trip counts: the group commit runs its
// writes one after another). Messages come as seven parallel arrays from $first on, in order.
const messagesFrom = (session: string, first: number) => `INSERT INTO messages (session_id, role, content, parts, tool_calls, tool_call_id, name, reasoning, created_at)
    SELECT ${session}.id, r.role, r.content, r.parts, r.tool_calls, r.tool_call_id, r.name, r.reasoning, ${session}.started
    FROM ${session}, unnest(${Array.from({ length: 7 }, (_, i) => `$${first + i}::text[]`).join(', ')})
      WITH ORDINALITY AS r(role, content, parts, tool_calls, tool_call_id, name, reasoning, ord)
    ORDER BY r.ord
    RETURNING id`
const IDS = `coalesce((SELECT array_agg(id ORDER BY id) FROM ins), '{}') AS ids`
export const CREATE = `WITH created AS (
    INSERT INTO sessions (id, title, parent_id, lineage, source, user_id, chat_id, model, provider, personality, cwd, started_at, updated_at, message_count,
      input_tokens, output_tokens, reasoning_tokens, cost_usd, api_calls, last_exit_reason)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id, started_at AS started),
  ins AS (${messagesFrom('created', 20)})
  SELECT ${IDS}`
// The session's row first: the insert draws ids only once the update holds the row's lock, so the
// ids of one session's messages follow commit order, whichever instance wrote them.
export const APPEND = `WITH bumped AS (
    UPDATE sessions SET message_count = message_count + $2, updated_at = $3,
      input_tokens = input_tokens + $4, output_tokens = output_tokens + $5, reasoning_tokens = reasoning_tokens + $6,
      cost_usd = cost_usd + $7, api_calls = api_calls + $8, last_exit_reason = coalesce($9, last_exit_reason)
    WHERE id = $1 RETURNING id, updated_at AS started),
  ins AS (${messagesFrom('bumped', 10)})
  SELECT (SELECT count(*) FROM bumped)::int AS found, ${IDS}`

/**
 * The newest compression continuation of $1, following the chain; itself if none; no row if $1 is
 * no session. A parent cycle ends the walk at the first session seen twice, as on SQLite.
 */
export const TIP = `
  WITH RECURSIVE chain(id, path) AS (
    SELECT id, ARRAY[id] FROM sessions WHERE id = $1
    UNION ALL
    SELECT next.id, chain.path || next.id FROM chain CROSS JOIN LATERAL (
      SELECT c.id FROM sessions c WHERE c.parent_id = chain.id AND c.lineage = 'compression'
      ORDER BY c.started_at DESC, c.seq DESC LIMIT 1
    ) next
    WHERE next.id <> ALL (chain.path) AND cardinality(chain.path) < ${MAX_HOPS}
  )
  SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = (SELECT id FROM chain ORDER BY cardinality(path) DESC LIMIT 1)`

/** A row when $2 is a compression ancestor of $1 (every step up is a compression continuation). */
export const ANCESTOR_HOLDING = `
  WITH RECURSIVE up(id, parent_id, lineage, hops) AS (
    SELECT id, parent_id, lineage, 0 FROM sessions WHERE id = $1
    UNION ALL
    SELECT s.id, s.parent_id, s.lineage, up.hops + 1 FROM up JOIN sessions s ON s.id = up.parent_id
    WHERE up.lineage = 'compression' AND up.hops < ${MAX_HOPS}
  )
  SELECT 1 FROM up WHERE id = $2 AND hops > 0 LIMIT 1`

/** The PostgreSQL error (code, constraint) in `error` or its causes: writes reject with pg's own, reads with E_STORAGE around it. */
export function pgErrorOf(error: unknown): { code: string; constraint?: string } | undefined {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown }
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return { code, ...(typeof constraint === 'string' ? { constraint } : {}) }
  }
  return undefined
}
