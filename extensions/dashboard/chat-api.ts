// The Chat page's API: POST /api/chat runs the agent (a new session or a stored one continued) and
// answers with its events over SSE: session, text deltas, tool calls with their arguments, output
// and duration, approvals waiting for the person at the page, then done or error. Approve/deny
// goes through the approvals service (POST /api/approvals/:id), like every other surface.

import { APPROVALS_SERVICE, errorMessage, HttpError, readJson, redactSecrets, RUNTIME_SERVICE, type AgentRuntime, type ApprovalPrompt, type ApprovalsService, type ExtensionApi, type HttpContext } from 'agent/sdk'
import type { DashboardConfig } from './options.ts'
import type { Route } from './routes.ts'
import { EventStream } from './sse.ts'

const MAX_RUNS = 4
const MAX_MESSAGE_CHARS = 100_000
const CHOICES = new Set(['once', 'session', 'always', 'deny'])

export function registerChat(api: ExtensionApi<DashboardConfig>, route: Route): void {
  let running = 0
  const secrets = () => api.settings.secretValues()

  route('POST', '/api/chat', 'write', async (ctx: HttpContext) => {
    const body = await readJson<{ message?: unknown; session_id?: unknown }>(ctx, 512 * 1024)
    const message = typeof body.message === 'string' ? body.message.trim() : ''
    if (!message) throw new HttpError(400, 'message must be a non-empty string', { param: 'message' })
    if (message.length > MAX_MESSAGE_CHARS) throw new HttpError(400, `message is longer than ${MAX_MESSAGE_CHARS} characters`, { param: 'message' })
    const sessionId = body.session_id === undefined || body.session_id === null || body.session_id === '' ? undefined : body.session_id
    if (sessionId !== undefined && (typeof sessionId !== 'string' || !/^[A-Za-z0-9_.:-]{1,128}$/.test(sessionId))) throw new HttpError(400, 'session_id is not a session id', { param: 'session_id' })
    const runtime = api.services.get<AgentRuntime>(RUNTIME_SERVICE)
    if (!runtime) throw new HttpError(503, 'No agent runtime is loaded', { code: 'no_runtime' })
    if (running >= MAX_RUNS) throw new HttpError(429, `${MAX_RUNS} chats are already running; wait for one to finish`, { code: 'busy' })

    running++
    const stream = new EventStream(ctx)
    const abort = new AbortController()
    stream.onClose(() => abort.abort())
    const started = new Map<string, number>()
    const approvalPrompt: ApprovalPrompt = (request) => {
      stream.send('approval', { id: request.id, tool: request.tool, call_id: request.callId, command: request.command, reasons: request.findings.map((f) => f.description), expires_at: request.expiresAt })
      // Answered through the approvals service (POST /api/approvals/:id), which settles the request.
      return new Promise(() => {})
    }
    try {
      const result = await runtime.run({
        input: message,
        sessionId,
        source: { platform: 'dashboard', userId: 'dashboard', chatId: 'dashboard' },
        signal: abort.signal,
        extra: { approvalPrompt },
        onEvent: (event) => {
          switch (event.type) {
            case 'session':
              return stream.send('session', { session_id: event.sessionId })
            case 'delta':
              return stream.send('delta', { text: event.text })
            case 'tool.start':
              started.set(event.callId, Date.now())
              return stream.send('tool.start', { call_id: event.callId, name: event.name, input: event.input })
            case 'tool.end':
              return stream.send('tool.end', { call_id: event.callId, name: event.name, ok: event.ok, output: event.result, duration_ms: Date.now() - (started.get(event.callId) ?? Date.now()) })
            case 'usage':
              return stream.send('usage', event.usage)
          }
        },
      })
      stream.send('done', { session_id: result.sessionId, answer: result.answer, exit_reason: result.exitReason, usage: result.usage })
    } catch (error) {
      stream.send('error', { message: redactSecrets(errorMessage(error), secrets()) })
    } finally {
      running--
      stream.end()
    }
  })

  route('GET', '/api/approvals', 'read', (ctx) => {
    const approvals = api.services.get<ApprovalsService>(APPROVALS_SERVICE)
    ctx.body = { data: (approvals?.pending() ?? []).map((r) => ({ id: r.id, session_id: r.sessionId, platform: r.source?.platform, tool: r.tool, command: r.command, reasons: r.findings.map((f) => f.description), created_at: r.createdAt, expires_at: r.expiresAt })) }
  })

  route('POST', '/api/approvals/:id', 'write', async (ctx) => {
    const body = await readJson<{ choice?: unknown }>(ctx, 4096)
    if (typeof body.choice !== 'string' || !CHOICES.has(body.choice)) throw new HttpError(400, 'choice must be once, session, always or deny', { param: 'choice' })
    const approvals = api.services.get<ApprovalsService>(APPROVALS_SERVICE)
    if (!approvals) throw new HttpError(503, 'The approvals extension is not loaded', { code: 'no_approvals' })
    const done = await approvals.resolve(ctx.params.id!, body.choice as 'once', 'answered in the dashboard')
    if (!done) throw new HttpError(404, 'No such approval is waiting (answered or expired)', { code: 'not_pending' })
    ctx.body = { id: ctx.params.id, choice: body.choice }
  })
}
