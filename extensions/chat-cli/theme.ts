// Terminal styles of the interactive chat for dark and light backgrounds (`display.theme`), and the
// display width of text (wide characters take two columns; escape sequences none).

import { UsageError } from 'agent/sdk'

export type ThemeMode = 'dark' | 'light'

export interface Theme {
  mode: ThemeMode
  /** False with NO_COLOR: styles are identity, rendered markdown is stripped of its colours. */
  color: boolean
  dim(text: string): string
  bold(text: string): string
  accent(text: string): string
  error(text: string): string
  ok(text: string): string
  warn(text: string): string
  /** The status bar line. */
  bar(text: string): string
  /** Context fill colours: below 50 %, below 80 %, above. */
  level(fraction: number, text: string): string
  reasoning(text: string): string
  prompt(text: string): string
}

const wrap = (open: string, close = '\x1b[0m') => (text: string) => `\x1b[${open}m${text}${close}`

export function createTheme(mode: ThemeMode, color = true): Theme {
  if (!color) {
    const id = (t: string) => t
    return { mode, color, dim: id, bold: id, accent: id, error: id, ok: id, warn: id, bar: id, level: (_f, t) => t, reasoning: id, prompt: id }
  }
  const dark = mode === 'dark'
  // Colours inside the bar end with a return to the bar's own colours, not a full reset.
  const barStyle = dark ? '48;5;236;38;5;252' : '48;5;254;38;5;236'
  const inBar = (fg: string) => (t: string) => `\x1b[${fg}m${t}\x1b[0;${barStyle}m`
  const green = inBar(dark ? '38;5;114' : '38;5;28')
  const yellow = inBar(dark ? '38;5;221' : '38;5;130')
  const red = inBar(dark ? '38;5;203' : '38;5;160')
  return {
    mode,
    color,
    dim: wrap(dark ? '38;5;245' : '38;5;242'),
    bold: wrap('1', '\x1b[22m'),
    accent: wrap(dark ? '38;5;117' : '38;5;25'),
    error: wrap(dark ? '38;5;203' : '38;5;160'),
    ok: wrap(dark ? '38;5;114' : '38;5;28'),
    warn: wrap(dark ? '38;5;221' : '38;5;130'),
    bar: (t) => `\x1b[0;${barStyle}m${t}\x1b[0m`,
    level: (f, t) => (f < 0.5 ? green(t) : f < 0.8 ? yellow(t) : red(t)),
    reasoning: wrap(dark ? '3;38;5;244' : '3;38;5;243'),
    prompt: wrap(dark ? '1;38;5;117' : '1;38;5;25'),
  }
}

/** `display.theme` or, when absent, a guess from COLORFGBG (set by some terminals); any other value is an error. */
export function themeMode(configured: unknown, colorfgbg: string | undefined): ThemeMode {
  if (configured === 'light' || configured === 'dark') return configured
  if (configured !== undefined && configured !== null) {
    throw new UsageError(`display.theme must be dark or light (got ${JSON.stringify(configured)}); set it with: agent config set display.theme dark`)
  }
  const bg = Number(colorfgbg?.split(';').pop())
  return Number.isFinite(bg) && bg >= 7 && bg !== 8 ? 'light' : 'dark'
}

const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b[78]/g

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '')
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  )
}

/** Columns one character takes: 0 for combining marks and controls, 2 for wide ones. */
export function charWidth(ch: string): number {
  const code = ch.codePointAt(0) ?? 0
  if (code < 32 || (code >= 0x7f && code < 0xa0)) return 0
  if ((code >= 0x300 && code <= 0x36f) || code === 0x200b || code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f)) return 0
  return isWide(code) ? 2 : 1
}

export function textWidth(text: string): number {
  let width = 0
  for (const ch of stripAnsi(text)) width += charWidth(ch)
  return width
}

/** Cuts plain text to at most `max` columns, ending with … when cut. */
export function truncate(text: string, max: number): string {
  if (max <= 0) return ''
  if (textWidth(text) <= max) return text
  let out = ''
  let width = 0
  for (const ch of text) {
    const w = charWidth(ch)
    if (width + w > max - 1) break
    out += ch
    width += w
  }
  return out + '…'
}
