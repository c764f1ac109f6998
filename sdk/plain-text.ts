// Markdown read as plain text: for SMS replies and for speech (a voice must not say "asterisk").
// snake_case survives: underscores count as emphasis only at word boundaries.

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
