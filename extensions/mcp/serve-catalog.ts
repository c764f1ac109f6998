// What `agent mcp serve` offers besides tools: resources (the stored sessions, each session's
// transcript, the skills' SKILL.md) and prompts (one per skill, with an optional `task`). URIs:
// `agent://sessions` (JSON index of recent sessions), `agent://sessions/<id>` (the transcript as
// markdown), `agent://skills/<name>` (SKILL.md). Everything read is cleared of known secrets.

import { redactSecrets, SESSIONS_SERVICE, SKILLS_SERVICE, type ChatMessage, type Services, type SessionStore, type SkillsService } from 'agent/sdk'

export const SESSIONS_URI = 'agent://sessions'
const SESSION_PREFIX = `${SESSIONS_URI}/`
const SKILL_PREFIX = 'agent://skills/'
/** Sessions per resources/list page and in the index. */
const PAGE = 50

export interface ResourceEntry {
  [key: string]: unknown
  uri: string
  name: string
  title?: string
  description?: string
  mimeType: string
}

export interface ResourceText {
  [key: string]: unknown
  uri: string
  mimeType: string
  text: string
}

/** Thrown for a URI or prompt this server does not have (the caller answers -32602). */
export class NotServed extends Error {}

export class ServeCatalog {
  constructor(
    private readonly services: Services,
    private readonly secrets: () => Iterable<string | undefined>,
  ) {}

  private sessions(): SessionStore | undefined {
    return this.services.get<SessionStore>(SESSIONS_SERVICE)
  }

  private skills(): SkillsService | undefined {
    return this.services.get<SkillsService>(SKILLS_SERVICE)
  }

  private clean(text: string): string {
    return redactSecrets(text, this.secrets())
  }

  /** One page: the skills and the index first, then the sessions, newest first. */
  async list(offset: number): Promise<{ resources: ResourceEntry[]; next?: number }> {
    const resources: ResourceEntry[] = []
    if (offset === 0) {
      for (const skill of this.skills()?.list() ?? []) {
        resources.push({ uri: `${SKILL_PREFIX}${skill.name}`, name: `skill ${skill.name}`, description: skill.description, mimeType: 'text/markdown' })
      }
      if (this.sessions()) resources.push({ uri: SESSIONS_URI, name: 'sessions', description: `The ${PAGE} most recent sessions`, mimeType: 'application/json' })
    }
    const page = (await this.sessions()?.list({ limit: PAGE, offset })) ?? []
    for (const record of page) {
      resources.push({
        uri: `${SESSION_PREFIX}${record.id}`,
        name: `session ${record.id}`,
        title: this.clean(record.title ?? record.id),
        description: `${record.source} session, ${record.messageCount} messages, updated ${new Date(record.updatedAt).toISOString()}`,
        mimeType: 'text/markdown',
      })
    }
    return { resources, ...(page.length === PAGE ? { next: offset + PAGE } : {}) }
  }

  templates() {
    return [
      { uriTemplate: `${SESSION_PREFIX}{id}`, name: 'session transcript', description: 'A stored session as markdown', mimeType: 'text/markdown' },
      { uriTemplate: `${SKILL_PREFIX}{name}`, name: 'skill', description: "A skill's SKILL.md instructions", mimeType: 'text/markdown' },
    ]
  }

  async read(uri: string): Promise<ResourceText> {
    if (uri === SESSIONS_URI) {
      const store = this.sessions()
      if (!store) throw new NotServed('sessions are not available')
      const page = await store.list({ limit: PAGE })
      const index = page.map((r) => ({ id: r.id, title: r.title ?? null, source: r.source, cwd: r.cwd ?? null, messages: r.messageCount, updated_at: new Date(r.updatedAt).toISOString() }))
      return { uri, mimeType: 'application/json', text: this.clean(JSON.stringify({ sessions: index }, null, 2)) }
    }
    if (uri.startsWith(SESSION_PREFIX)) {
      const id = decodeURIComponent(uri.slice(SESSION_PREFIX.length))
      const record = id ? await this.sessions()?.get(id) : undefined
      if (!record) throw new NotServed(`no session "${id}"`)
      const messages = await this.sessions()!.messages(record.id)
      return { uri, mimeType: 'text/markdown', text: this.clean(transcript(record.title ?? record.id, messages)) }
    }
    if (uri.startsWith(SKILL_PREFIX)) {
      const name = decodeURIComponent(uri.slice(SKILL_PREFIX.length))
      const skill = this.skills()?.get(name)
      if (!skill) throw new NotServed(`no skill named "${name}"`)
      return { uri, mimeType: 'text/markdown', text: skill.instructions }
    }
    throw new NotServed(`no resource "${uri}" (this server has ${SESSIONS_URI}, ${SESSION_PREFIX}<id> and ${SKILL_PREFIX}<name>)`)
  }

  prompts() {
    return (this.skills()?.list() ?? []).map((skill) => ({
      name: skill.name,
      description: skill.description,
      arguments: [{ name: 'task', description: 'What to apply the skill to', required: false }],
    }))
  }

  prompt(name: string, args: Record<string, string> | undefined) {
    const skill = this.skills()?.get(name)
    if (!skill) throw new NotServed(`no prompt named "${name}" (prompts are the agent's skills)`)
    const task = args?.task?.trim()
    const text = `Follow the skill "${skill.name}":\n\n${skill.instructions.trim()}${task ? `\n\nTask: ${task}` : ''}`
    return { description: skill.description, messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] }
  }
}

function partText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n')
}

/** A conversation as markdown: one section per message, tool calls and results included. */
export function transcript(title: string, messages: readonly ChatMessage[]): string {
  const lines = [`# ${title}`, '']
  for (const message of messages) {
    if (message.role === 'system') continue
    const text = partText(message.content).trim()
    if (message.role === 'tool') {
      lines.push(`### tool result${message.name ? ` (${message.name})` : ''}`, '', '```', text, '```', '')
      continue
    }
    lines.push(`## ${message.role}`, '')
    if (text) lines.push(text, '')
    for (const call of message.toolCalls ?? []) lines.push(`→ tool call \`${call.name}\` ${call.arguments}`, '')
  }
  return lines.join('\n')
}
