// Full-text search over messages on PostgreSQL: the GIN-indexed messages.search_vector matched by a
// tsquery. Plain text (default) becomes one term per word, all required, each quoted so tsquery
// operators in user text are plain words; a word of several tokens (`foo-bar`, `a.b`) is a phrase,
// and a trailing `*` keeps a prefix search. `raw` is PostgreSQL's web search syntax
// (websearch_to_tsquery: "phrases", OR, -excluded; never a syntax error). Rank is ts_rank negated
// (lower is better, as bm25 on SQLite); snippets come from ts_headline, for the page of hits only.

import { UsageError, type PgQuery, type SessionSearchHit, type SessionSearchOptions } from 'agent/sdk'
import { queryTerms, searchFilters, searchLimit, toHit, type HitRow } from './search.ts'

/** `deploy "prod db" config*` → `'deploy' & 'prod' & 'db' & 'config':*`. */
export function toTsQuery(text: string): string {
  // Inside a quoted tsquery lexeme a quote is doubled and a backslash escapes.
  const quote = (word: string) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
  return queryTerms(text).map((t) => `${quote(t.word)}${t.prefix ? ':*' : ''}`).join(' & ')
}

// StartSel/StopSel as in the SQLite snippet; one fragment of at most 16 words around the best match.
const HEADLINE = 'StartSel=[, StopSel=], MaxFragments=1, MaxWords=16, MinWords=6, ShortWord=0, FragmentDelimiter=…'

export async function searchMessagesPg(pg: PgQuery, query: string, options: SessionSearchOptions = {}): Promise<SessionSearchHit[]> {
  const text = options.raw ? query.trim() : toTsQuery(query)
  if (!text) throw new UsageError('the search query has no words to look for')
  const limit = searchLimit(options)
  const params: unknown[] = [text]
  const where = ['m.search_vector @@ q.q', ...searchFilters(options, params, (n) => `$${n}`)]
  params.push(limit)
  const sql = `
    WITH q AS (SELECT ${options.raw ? 'websearch_to_tsquery' : 'to_tsquery'}('sessions_search', $1) AS q),
    hits AS (
      SELECT m.id, m.session_id, m.role, m.created_at, m.content, s.title, s.source, -ts_rank(m.search_vector, q.q) AS rank
      FROM q, messages m JOIN sessions s ON s.id = m.session_id
      WHERE ${where.join(' AND ')}
      ORDER BY ${options.order === 'recent' ? 'm.id DESC' : 'rank, m.id DESC'}
      LIMIT $${params.length}
    )
    SELECT h.id, h.session_id, h.role, h.created_at, h.title, h.source, h.rank,
           ts_headline('sessions_search', h.content, q.q, '${HEADLINE}') AS snippet
    FROM hits h, q
    ORDER BY ${options.order === 'recent' ? 'h.id DESC' : 'h.rank, h.id DESC'}`
  let rows: HitRow[]
  try {
    rows = await pg.query<HitRow>(sql, params)
  } catch (error) {
    // Only the plain form can be malformed (a lexeme PostgreSQL's parser still refuses).
    if (/tsquery|syntax/i.test(String((error as Error)?.message))) throw new UsageError(`invalid search query: ${(error as Error).message}`, { cause: error })
    throw error
  }
  return rows.map(toHit)
}
