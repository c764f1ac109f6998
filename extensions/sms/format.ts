// SMS replies are plain text: markdown is stripped (snake_case survives: underscores count only at
// word boundaries) and long text is split into parts of at most 1600 characters.

import { splitText } from 'agent/sdk'

export const MAX_SMS_LENGTH = 1600

export function stripMarkdown(text: string): string {
  let out = text
  out = out.replace(/```[^\n`]*\n?([\s\S]*?)```/g, (_m, code: string) => code.replace(/\n$/, ''))
  out = out.replace(/`([^`\n]+)`/g, '$1')
  out = out.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
  out = out.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
  out = out.replace(/\*\*([^*\n]+)\*\*/g, '$1')
  out = out.replace(/(^|[^\w*])\*([^*\n]+)\*(?=[^\w*]|$)/g, '$1$2')
  out = out.replace(/(^|\W)__([^_\n]+)__(?=\W|$)/g, '$1$2')
  out = out.replace(/(^|\W)_([^_\n]+)_(?=\W|$)/g, '$1$2')
  out = out.replace(/~~([^~\n]+)~~/g, '$1')
  out = out.replace(/^#{1,6}[ \t]+/gm, '')
  out = out.replace(/^>[ \t]?/gm, '')
  out = out.replace(/^[ \t]*[-*_]{3,}[ \t]*$/gm, '')
  out = out.replace(/\n{3,}/g, '\n\n')
  return out.trim()
}

export function smsParts(text: string): string[] {
  return splitText(stripMarkdown(text), MAX_SMS_LENGTH)
}
