// Answers in Signal's own formatting: markdown is turned into plain text plus text style ranges
// (signal-cli `send` takes `textStyle` entries "start:length:STYLE", counted in UTF-16 units like
// JavaScript strings): **bold**/__bold__ and headings BOLD, *italic*/_italic_ ITALIC, ~~strike~~
// STRIKETHROUGH, ||spoiler|| SPOILER, `code` and fenced blocks MONOSPACE; links read "text (url)".
// snake_case and lone asterisks stay as written.

export interface SignalText {
  text: string
  styles: string[]
}

const INLINE = /`([^`\n]+)`|\*\*(?!\s)(.+?)(?<!\s)\*\*|__(?!\s)(.+?)(?<!\s)__|~~(?!\s)(.+?)(?<!\s)~~|\|\|(?!\s)(.+?)(?<!\s)\|\||(?<![\w*])\*(?![\s*])([^*\n]+?)(?<![\s*])\*(?![\w*])|(?<![\w_])_(?![\s_])([^_\n]+?)(?<![\s_])_(?![\w_])|\[([^\]\n]+)\]\(([^)\s]+)\)/g
const STYLE_OF: Record<number, string> = { 2: 'BOLD', 3: 'BOLD', 4: 'STRIKETHROUGH', 5: 'SPOILER', 6: 'ITALIC', 7: 'ITALIC' }

function styled(out: SignalText, style: string, write: () => void): void {
  const start = out.text.length
  write()
  const length = out.text.length - start
  if (length > 0) out.styles.push(`${start}:${length}:${style}`)
}

function inline(source: string, out: SignalText): void {
  let last = 0
  for (const m of source.matchAll(new RegExp(INLINE.source, 'g'))) {
    out.text += source.slice(last, m.index)
    last = m.index + m[0].length
    if (m[1] !== undefined) styled(out, 'MONOSPACE', () => (out.text += m[1]))
    else if (m[8] !== undefined) {
      inline(m[8], out)
      out.text += m[9] === m[8] ? '' : ` (${m[9]})`
    } else {
      const group = [2, 3, 4, 5, 6, 7].find((g) => m[g] !== undefined)!
      styled(out, STYLE_OF[group]!, () => inline(m[group]!, out))
    }
  }
  out.text += source.slice(last)
}

function lines(source: string, out: SignalText): void {
  const all = source.split('\n')
  all.forEach((line, i) => {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)
    if (heading) styled(out, 'BOLD', () => inline(heading[1]!, out))
    else inline(line, out)
    if (i < all.length - 1) out.text += '\n'
  })
}

export function toSignalText(markdown: string): SignalText {
  const out: SignalText = { text: '', styles: [] }
  let last = 0
  for (const m of markdown.matchAll(/^```[^\n`]*\n([\s\S]*?)\n?```[ \t]*$/gm)) {
    lines(markdown.slice(last, m.index), out)
    styled(out, 'MONOSPACE', () => (out.text += m[1]))
    last = m.index + m[0].length
  }
  lines(markdown.slice(last), out)
  return out
}
