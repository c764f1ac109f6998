// `agent sessions list|rename|search|show`: the stored sessions from the command line. --json prints
// one document with snake_case keys; the text forms are one line per item. What is printed is
// redacted with the secrets known now (shown.ts), before any cut.

import { AgentError, redactDeep, UsageError, type CliContext, type CliSubcommand, type SessionRecord, type SessionStore, type StoredMessage } from 'agent/sdk'
import { shownHits } from './shown.ts'

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString())

export function sessionJson(s: SessionRecord) {
  return {
    id: s.id,
    title: s.title ?? null,
    parent_session_id: s.parentId ?? null,
    lineage: s.lineage ?? null,
    source: s.source,
    user_id: s.userId ?? null,
    chat_id: s.chatId ?? null,
    model: s.model ?? null,
    provider: s.provider ?? null,
    personality: s.personality ?? null,
    cwd: s.cwd ?? null,
    started_at: iso(s.startedAt),
    updated_at: iso(s.updatedAt),
    ended_at: iso(s.endedAt),
    end_reason: s.endReason ?? null,
    last_exit_reason: s.lastExitReason ?? null,
    message_count: s.messageCount,
    api_calls: s.apiCalls,
    usage: {
      input_tokens: s.usage.inputTokens,
      output_tokens: s.usage.outputTokens,
      reasoning_tokens: s.usage.reasoningTokens,
      total_tokens: s.usage.totalTokens,
      cost_usd: s.usage.costUsd,
    },
  }
}

function when(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 16)
}

function sessionLine(s: SessionRecord): string {
  const title = s.title ? `"${s.title}"` : '(untitled)'
  const ended = s.endReason ? ` [${s.endReason}]` : ''
  const parent = s.parentId ? ` ← ${s.parentId}` : ''
  return `${s.id}  ${when(s.updatedAt)}  ${s.source.padEnd(10)} ${String(s.messageCount).padStart(4)} msgs  ${title}${ended}${parent}`
}

function messageText(m: StoredMessage): string {
  const content = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join(' ') : ''
  const calls = m.toolCalls?.length ? ` → ${m.toolCalls.map((c) => `${c.name}(${c.arguments.slice(0, 80)})`).join(', ')}` : ''
  return `${m.role}${m.name ? ` (${m.name})` : ''}: ${content}${calls}`
}

/** An exact id or exact title first (renaming must not jump along a lineage), else the resolver. */
async function findForEdit(store: SessionStore, idOrTitle: string): Promise<SessionRecord> {
  const direct = (await store.get(idOrTitle)) ?? (await store.list({ title: idOrTitle, limit: 1 }))[0]
  const found = direct ?? (await store.resolve(idOrTitle))
  if (!found) throw new AgentError('E_NOT_FOUND', `no session with id or title "${idOrTitle}"`)
  return found
}

/** `redactor`: the known-secrets redactor as of now (throws when the secrets cannot be read: nothing is printed). */
export function sessionsCli(store: () => SessionStore, redactor: () => (text: string) => string): Record<string, CliSubcommand> {
  const json = { json: { type: 'boolean' as const, describe: 'Print one JSON document' } }
  return {
    list: {
      description: 'List stored sessions, most recent first',
      options: {
        ...json,
        limit: { type: 'number', default: 50, describe: 'How many to show' },
        source: { type: 'string', describe: 'Only sessions from this platform (cli, api_server, telegram …)' },
      },
      async run(ctx: CliContext) {
        const limit = Number(ctx.argv.limit)
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer')
        const sessions = redactDeep(await store().list({ limit, source: ctx.argv.source as string | undefined }), redactor())
        if (ctx.argv.json) return void ctx.json(sessions.map(sessionJson))
        if (sessions.length === 0) return void ctx.out('no sessions yet')
        for (const s of sessions) ctx.out(sessionLine(s))
      },
    },
    rename: {
      description: 'Set the title of a session (unique, at most 100 characters)',
      args: '<session> <title>',
      positionals: { session: { describe: 'Session id or current title' }, title: { describe: 'New title ("" clears it)' } },
      async run(ctx: CliContext) {
        const target = await findForEdit(store(), String(ctx.argv.session))
        const title = await store().setTitle(target.id, String(ctx.argv.title ?? ''))
        ctx.out(title ? `session ${target.id} is now "${title}"` : `session ${target.id} has no title now`)
      },
    },
    search: {
      description: 'Full-text search over stored messages',
      args: '<query..>',
      options: {
        ...json,
        limit: { type: 'number', default: 20, describe: 'How many hits' },
        source: { type: 'string', describe: 'Only sessions from this platform' },
        raw: { type: 'boolean', describe: `The backend's query syntax: FTS5 on SQLite (OR, NEAR, "phrases", prefix*), web search on PostgreSQL ("phrases", OR, -word)` },
        recent: { type: 'boolean', describe: 'Newest matches first instead of best matches first' },
      },
      async run(ctx: CliContext) {
        const query = ([] as unknown[]).concat(ctx.argv.query ?? []).join(' ')
        const limit = Number(ctx.argv.limit)
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer')
        const found = await store().search(query, { limit, source: ctx.argv.source as string | undefined, raw: Boolean(ctx.argv.raw), order: ctx.argv.recent ? 'recent' : 'rank' })
        const hits = await shownHits(found, store(), redactor(), query)
        if (ctx.argv.json) {
          return void ctx.json(hits.map((h) => ({ session_id: h.sessionId, message_id: h.messageId, role: h.role, title: h.title ?? null, source: h.source, created_at: iso(h.createdAt), snippet: h.snippet, rank: h.rank })))
        }
        if (hits.length === 0) return void ctx.out('no matches')
        for (const h of hits) ctx.out(`${h.sessionId}  ${when(h.createdAt)}  ${h.role.padEnd(9)} ${h.snippet}`)
      },
    },
    show: {
      description: 'Print a session and its messages',
      args: '<session>',
      positionals: { session: { describe: 'Session id or title' } },
      options: json,
      async run(ctx: CliContext) {
        const redact = redactor()
        const found = await findForEdit(store(), String(ctx.argv.session))
        const messages = redactDeep(await store().messages(found.id), redact)
        const session = redactDeep(found, redact)
        if (ctx.argv.json) {
          return void ctx.json({
            ...sessionJson(session),
            messages: messages.map((m) => ({ id: m.id, role: m.role, content: m.content, tool_calls: m.toolCalls ?? null, tool_call_id: m.toolCallId ?? null, name: m.name ?? null, reasoning: m.reasoning ?? null, created_at: iso(m.createdAt) })),
          })
        }
        ctx.out(sessionLine(session))
        for (const m of messages) ctx.out(`  ${messageText(m)}`)
      },
    },
  }
}
