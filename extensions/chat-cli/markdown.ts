// Markdown answers as terminal text: marked + marked-terminal (code highlighted by cli-highlight),
// coloured for the theme's background. Loaded on first use, so `agent --help` and the first prompt
// never pay for it. Rendered block by block: finished blocks are cached, only the last one (still
// streaming) is rendered again on each delta, without highlighting until it is complete.

import { terminalSafe } from 'agent/sdk'
import { drawTable, type Align } from './table.ts'
import type { ThemeMode } from './theme.ts'

export interface MarkdownRenderer {
  /** The answer so far as terminal text for rows of `columns`; `final` once the answer is complete. */
  render(source: string, final: boolean, columns: number): string
}

type Style = (text: string) => string
const sgr = (open: string, close: string): Style => (text) => `\x1b[${open}m${text}\x1b[${close}m`
const plain: Style = (text) => text

function palette(mode: ThemeMode) {
  const dark = mode === 'dark'
  const fg = (n: number) => sgr(`38;5;${n}`, '39')
  return {
    heading: sgr(`1;38;5;${dark ? 117 : 25}`, '22;39'),
    firstHeading: sgr(`1;4;38;5;${dark ? 177 : 90}`, '22;24;39'),
    code: fg(dark ? 222 : 130),
    codespan: fg(dark ? 222 : 130),
    blockquote: sgr(`3;38;5;${dark ? 246 : 241}`, '23;39'),
    html: fg(dark ? 245 : 242),
    hr: fg(dark ? 240 : 250),
    strong: sgr('1', '22'),
    em: sgr('3', '23'),
    del: sgr('9', '29'),
    link: plain,
    href: sgr(`4;38;5;${dark ? 75 : 26}`, '24;39'),
    syntax: {
      keyword: fg(dark ? 176 : 90),
      built_in: fg(dark ? 80 : 30),
      type: fg(dark ? 80 : 30),
      literal: fg(dark ? 75 : 26),
      number: fg(dark ? 151 : 28),
      regexp: fg(dark ? 210 : 124),
      string: fg(dark ? 180 : 124),
      class: fg(dark ? 80 : 30),
      function: fg(dark ? 222 : 94),
      title: fg(dark ? 222 : 94),
      comment: sgr(`3;38;5;${dark ? 244 : 245}`, '23;39'),
      doctag: fg(dark ? 244 : 245),
      meta: fg(dark ? 244 : 245),
      tag: fg(dark ? 75 : 26),
      name: fg(dark ? 75 : 26),
      attr: fg(dark ? 222 : 94),
      attribute: fg(dark ? 222 : 94),
      variable: fg(dark ? 117 : 25),
      addition: fg(dark ? 114 : 28),
      deletion: fg(dark ? 203 : 160),
      default: plain,
    } as Record<string, Style>,
    table: { head: sgr(`1;38;5;${dark ? 117 : 25}`, '22;39'), border: fg(dark ? 240 : 248) },
  }
}

let loading: Promise<unknown> | undefined

const renderers = new Map<ThemeMode, MarkdownRenderer>()

/** The renderer for this background if already loaded (or undefined: call `loadMarkdown`). */
export function markdownRenderer(mode: ThemeMode): MarkdownRenderer | undefined {
  return renderers.get(mode)
}

/** Loads marked and marked-terminal (once) and builds the renderer for this background. */
export async function loadMarkdown(mode: ThemeMode): Promise<MarkdownRenderer> {
  const ready = renderers.get(mode)
  if (ready) return ready
  loading ??= Promise.all([import('marked'), import('marked-terminal'), import('cli-highlight')])
  const [{ Marked }, { markedTerminal }, { highlight }] = (await loading) as [typeof import('marked'), typeof import('marked-terminal'), typeof import('cli-highlight')]
  const colours = palette(mode)
  const options = {
    ...colours,
    table: plain,
    paragraph: plain,
    listitem: plain,
    text: plain,
    emoji: false,
    showSectionPrefix: false,
    reflowText: false,
    tab: 2,
  }
  /** The width tables are drawn for: set by each render (a table is the one block that depends on it). */
  let columns = 80
  const highlighted = new Marked({ gfm: true })
  highlighted.use(markedTerminal(options, { theme: colours.syntax, ignoreIllegals: true }))
  // Links as "text (url)": marked-terminal would emit OSC 8 hyperlinks on some terminals, which the
  // screen's wrapping and a plain transcript do not carry.
  const link = {
    renderer: {
      link(this: Inline, token: { href: string; text: string; tokens: unknown[] }) {
        const text = this.parser.parseInline(token.tokens)
        const href = terminalSafe(token.href)
        return text && text !== href ? `${text} (${colours.href(href)})` : colours.href(href)
      },
      // Text of a tight list item is a block token with inline children; marked-terminal prints it
      // raw ("`code`", "**bold**"), so its children are rendered here. Plain inline text falls through.
      text(this: Inline, token: { tokens?: unknown[] }) {
        return token.tokens ? this.parser.parseInline(token.tokens) : false
      },
      // Code is highlighted here, not by marked-terminal: it leaves code plain whenever its chalk
      // finds no colour support in the environment (CI=true, say), while the chat decides colour
      // itself (NO_COLOR strips what is rendered).
      code(token: { text: string; lang?: string }) {
        const text = terminalSafe(token.text.replace(/\t/g, '  '))
        let shown: string
        try {
          shown = highlight(text, { language: token.lang || undefined, theme: colours.syntax, ignoreIllegals: true })
        } catch {
          shown = text
        }
        return `${shown.split('\n').map((line) => `  ${line}`).join('\n')}\n\n`
      },
      // A rule of fixed length: the screen wraps lines to the terminal, and the width may change.
      hr: () => `${colours.hr('─'.repeat(40))}\n\n`,
      table(this: Inline, token: { header: { tokens: unknown[] }[]; rows: { tokens: unknown[] }[][]; align: Align[] }) {
        const cells = (row: { tokens: unknown[] }[]) => row.map((c) => this.parser.parseInline(c.tokens))
        return `${drawTable(cells(token.header), token.rows.map(cells), token.align, columns, colours.table)}\n\n`
      },
    },
  }
  highlighted.use(link as never)
  const blocks = blockRenderer(highlighted)
  const renderer: MarkdownRenderer = {
    render(source, final, width) {
      columns = width
      return blocks.render(source, final, width)
    },
  }
  renderers.set(mode, renderer)
  return renderer
}

type Inline = { parser: { parseInline(tokens: unknown[]): string } }

interface Token {
  type: string
  raw: string
  lang?: string
}
interface MarkedLike {
  lexer(source: string): Token[] & { links?: unknown }
  parser(tokens: Token[]): string
}

/** Renders top-level blocks one at a time, caching finished ones by their source (and width, for tables). */
function blockRenderer(marked: MarkedLike): MarkdownRenderer {
  const cache = new Map<string, string>()
  const one = (tokens: Token[] & { links?: unknown }, token: Token, live: boolean, columns: number): string => {
    // Tables are laid out for the width; every other block is the same at any width.
    const key = token.type === 'table' ? `${columns}\0${token.raw}` : token.raw
    const cached = live ? undefined : cache.get(key)
    if (cached !== undefined) return cached
    // A code block still streaming is shown without highlighting (auto-detection on every delta
    // would be slow, and the language may change its mind); it is highlighted once closed.
    const shown = live && token.type === 'code' ? { ...token, lang: 'plaintext' } : token
    const list = Object.assign([shown], { links: tokens.links ?? {} })
    let text: string
    try {
      text = marked.parser(list as Token[])
    } catch {
      text = terminalSafe(token.raw)
    }
    if (!live) {
      if (cache.size > 500) cache.clear()
      cache.set(key, text)
    }
    return text
  }
  return {
    render(source, final, columns) {
      const tokens = marked.lexer(source)
      let last = tokens.length - 1
      while (last >= 0 && tokens[last]!.type === 'space') last--
      let out = ''
      tokens.forEach((token, i) => {
        if (token.type === 'space') return
        out += one(tokens, token, !final && i === last, columns)
      })
      return out.replace(/\n+$/, '').replace(/^\n+/, '')
    },
  }
}
