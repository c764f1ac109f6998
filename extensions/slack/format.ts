// Outgoing text for Slack: the answer's markdown rendered to Slack's own markup (mrkdwn) from marked's
// token tree, then split into messages. Escape-first: every piece of model text has &, < and > escaped,
// so an answer can never form a mention (<!channel>, <@U…>) or a link Slack would parse; the only
// angle brackets are the links written here (http(s) and mailto targets only).

import { markdownParts } from 'agent/sdk'
import { marked, type Token, type Tokens } from 'marked'

/** Slack shows up to 4,000 characters of a message's text well (it truncates at 40,000). */
export const MAX_MESSAGE_LENGTH = 4000
const RULE = '──────────'

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** A link target Slack may turn into a link: http(s) and mailto only, no spaces, pipes or brackets. */
function linkTarget(href: string): string | undefined {
  const target = href.trim()
  if (!/^(https?:\/\/|mailto:)/i.test(target) || /[\s<>|]/.test(target)) return undefined
  return target.replace(/&/g, '&amp;')
}

export interface MrkdwnOptions {
  /**
   * On Slack a message starting with `/` is a slash command, so `/approve` in an answer is rewritten
   * to `/agent approve` (outside code) for these command names and aliases.
   */
  commands?: { slash: string; names: ReadonlySet<string> }
}

interface Inline extends MrkdwnOptions {
  /** Inside bold (a heading): nested bold markers would end it early. */
  bold?: boolean
}

/** `/name` (a whole word, not a path) → `/agent name`, for the gateway's command names. */
export function commandReferences(text: string, commands: MrkdwnOptions['commands']): string {
  if (!commands) return text
  return text.replace(/(^|[\s("'])\/([A-Za-z][\w-]*)(?=$|[\s.,;:!?)"'])/g, (match, before: string, name: string) => (commands.names.has(name.toLowerCase()) ? `${before}${commands.slash} ${name}` : match))
}

function inline(tokens: readonly Token[] | undefined, context: Inline = {}): string {
  let out = ''
  for (const token of tokens ?? []) out += inlineToken(token, context)
  return out
}

function inlineToken(token: Token, context: Inline): string {
  switch (token.type) {
    case 'strong':
      return context.bold ? inline(token.tokens, context) : `*${inline(token.tokens, { ...context, bold: true })}*`
    case 'em':
      return `_${inline(token.tokens, context)}_`
    case 'del':
      return `~${inline(token.tokens, context)}~`
    case 'codespan':
      return `\`${escapeMrkdwn(token.text)}\``
    case 'br':
      return '\n'
    case 'link':
    case 'image': {
      const label = token.type === 'image' ? escapeMrkdwn(token.text || token.href) : inline(token.tokens, context)
      const target = linkTarget(token.href)
      if (!target) return label === escapeMrkdwn(token.href) ? label : `${label} (${escapeMrkdwn(token.href)})`
      return (token as Tokens.Link).autolink ? `<${target}>` : `<${target}|${label.replace(/\|/g, '¦')}>`
    }
    case 'text':
      return 'tokens' in token && token.tokens ? inline(token.tokens, context) : escapeMrkdwn(commandReferences(token.text, context.commands))
    // Raw HTML, escapes and anything else: shown as the text it is.
    default:
      return escapeMrkdwn('text' in token && typeof token.text === 'string' ? token.text : token.raw)
  }
}

function list(token: Tokens.List, depth: number, options: MrkdwnOptions): string {
  const indent = '    '.repeat(depth)
  const start = typeof token.start === 'number' ? token.start : 1
  return token.items
    .map((item, i) => {
      const marker = item.task ? (item.checked ? '☑' : '☐') : token.ordered ? `${start + i}.` : '•'
      const body = blocks(item.tokens.filter((t) => t.type !== 'checkbox'), depth + 1, '\n', options)
      return `${indent}${marker} ${body}`
    })
    .join('\n')
}

/** A table as a code block of padded columns: Slack has no tables. */
function table(token: Tokens.Table): string {
  const plain = (cell: Tokens.TableCell) => cell.text.replace(/\s+/g, ' ').trim()
  const rows = [token.header.map(plain), ...token.rows.map((row) => row.map(plain))]
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)))
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ').trimEnd()
  const text = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.slice(1).map(line)].join('\n')
  return `\`\`\`\n${escapeMrkdwn(text)}\n\`\`\``
}

function block(token: Token, depth: number, options: MrkdwnOptions): string | undefined {
  switch (token.type) {
    case 'space':
    case 'def':
      return undefined
    case 'heading':
      return `*${inline(token.tokens, { ...options, bold: true })}*`
    case 'paragraph':
      return inline(token.tokens, options)
    case 'text':
      return 'tokens' in token && token.tokens ? inline(token.tokens, options) : escapeMrkdwn(commandReferences(token.text, options.commands))
    case 'code':
      // Slack shows no language: the info string is dropped.
      return `\`\`\`\n${escapeMrkdwn(token.text)}\n\`\`\``
    case 'blockquote':
      return blocks(token.tokens ?? [], depth, '\n\n', options)
        .split('\n')
        .map((line) => `> ${line}`.trimEnd())
        .join('\n')
    case 'list':
      return list(token as Tokens.List, depth, options)
    case 'table':
      return table(token as Tokens.Table)
    case 'hr':
      return RULE
    default:
      return escapeMrkdwn(token.raw.trim())
  }
}

function blocks(tokens: readonly Token[], depth: number, separator: string, options: MrkdwnOptions): string {
  return tokens
    .map((token) => block(token, depth, options))
    .filter((text): text is string => text !== undefined && text !== '')
    .join(separator)
}

/** Markdown (what models write) as Slack mrkdwn. */
export function toMrkdwn(markdown: string, options: MrkdwnOptions = {}): string {
  return blocks(marked.lexer(markdown), 0, '\n\n', options).trim()
}

/** Markdown as Slack messages of at most `max` characters (code blocks balanced in each part). */
export function slackParts(markdown: string, options: MrkdwnOptions = {}, max = MAX_MESSAGE_LENGTH): string[] {
  const text = toMrkdwn(markdown, options)
  return text ? markdownParts(text, max) : []
}
