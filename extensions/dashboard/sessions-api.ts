// The Sessions page's API over the session store: list, full-text search (the store's FTS index,
// matches marked in the snippet), one session with its transcript, rename, delete, and export as
// Markdown or JSON.

import { HttpError, MAX_TITLE_LENGTH, readJson, SESSIONS_SERVICE, snakeCaseKeys, UsageError, type ExtensionApi, type HttpContext, type SessionStore } from 'agent/sdk'
import { transcriptMarkdown } from './export.ts'
import type { DashboardConfig } from './options.ts'
import type { Route } from './routes.ts'

function intParam(value: unknown, fallback: number, min: number, max: number, name: string): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new HttpError(400, `${name} must be a whole number from ${min} to ${max}`, { param: name })
  return n
}

export function registerSessions(api: ExtensionApi<DashboardConfig>, route: Route): void {
  const store = () => {
    const s = api.services.get<SessionStore>(SESSIONS_SERVICE)
    if (!s) throw new HttpError(503, 'The session store (extension sessions) is not loaded', { code: 'no_sessions' })
    return s
  }
  const found = async (ctx: HttpContext) => {
    const session = await store().get(ctx.params.id!)
    if (!session) throw new HttpError(404, `No session ${ctx.params.id}`, { code: 'not_found' })
    return session
  }
  // The store refuses a query it cannot search (only quotes, `*`, control characters) with a
  // UsageError: that is the client's input, so 400 with the store's own words, not a 500.
  const search = async (q: string, limit: number) => {
    try {
      return await store().search(q, { limit })
    } catch (error) {
      if (UsageError.isInstance(error)) throw new HttpError(400, `q cannot be searched: ${error.message}`, { param: 'q', code: 'invalid_query' })
      throw error
    }
  }
  const query = (ctx: HttpContext, name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : undefined)

  route('GET', '/api/sessions', 'read', async (ctx) => {
    const limit = intParam(query(ctx, 'limit'), 50, 1, 500, 'limit')
    const offset = intParam(query(ctx, 'offset'), 0, 0, 1_000_000, 'offset')
    const source = query(ctx, 'source')?.trim() || undefined
    ctx.body = { data: snakeCaseKeys(await store().list({ limit, offset, source })) }
  })

  route('GET', '/api/search', 'read', async (ctx) => {
    const q = query(ctx, 'q')?.trim()
    if (!q) throw new HttpError(400, 'q is required', { param: 'q' })
    if (q.length > 500) throw new HttpError(400, 'q is longer than 500 characters', { param: 'q' })
    const limit = intParam(query(ctx, 'limit'), 50, 1, 200, 'limit')
    ctx.body = { data: snakeCaseKeys(await search(q, limit)) }
  })

  route('GET', '/api/sessions/:id', 'read', async (ctx) => {
    const session = await found(ctx)
    const messages = await store().messages(session.id)
    ctx.body = { session: snakeCaseKeys(session), messages: snakeCaseKeys(messages) }
  })

  route('PATCH', '/api/sessions/:id', 'write', async (ctx) => {
    const session = await found(ctx)
    const body = await readJson<{ title?: unknown }>(ctx, 4096)
    if (body.title !== null && typeof body.title !== 'string') throw new HttpError(400, 'title must be a string or null', { param: 'title' })
    if (typeof body.title === 'string' && body.title.length > MAX_TITLE_LENGTH) throw new HttpError(400, `title is longer than ${MAX_TITLE_LENGTH} characters`, { param: 'title' })
    try {
      const title = await store().setTitle(session.id, typeof body.title === 'string' && body.title.trim() ? body.title : null)
      ctx.body = { id: session.id, title: title ?? null }
    } catch (error) {
      throw new HttpError(409, (error as Error).message, { code: 'title_taken' })
    }
  })

  route('DELETE', '/api/sessions/:id', 'write', async (ctx) => {
    const session = await found(ctx)
    ctx.body = { id: session.id, deleted: await store().delete(session.id) }
  })

  route('GET', '/api/sessions/:id/export', 'read', async (ctx) => {
    const session = await found(ctx)
    const messages = await store().messages(session.id)
    const format = query(ctx, 'format') ?? 'md'
    if (format !== 'md' && format !== 'json') throw new HttpError(400, 'format must be md or json', { param: 'format' })
    const name = `session-${session.id.replace(/[^A-Za-z0-9_.-]/g, '_')}.${format}`
    ctx.set('Content-Disposition', `attachment; filename="${name}"`)
    if (format === 'json') ctx.body = { session: snakeCaseKeys(session), messages: snakeCaseKeys(messages) }
    else {
      ctx.type = 'text/markdown; charset=utf-8'
      ctx.body = transcriptMarkdown(session, messages)
    }
  })
}
