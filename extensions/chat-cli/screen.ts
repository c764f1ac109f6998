// The terminal layout of the interactive chat: a scrolling output region on top (DECSTBM), the input
// lines below it and the status bar on the last row. The output is a model (lines and live blocks),
// not what happens to be on the terminal: the region shows the tail of the model wrapped at word
// boundaries, and every change repaints only the rows that differ. A resize repaints every row
// from the model at the new size, so nothing stale stays and a turn keeps streaming into it.

import { charWidth, textWidth } from './theme.ts'

export interface TtyOut {
  write(text: string): boolean
  readonly columns?: number
  readonly rows?: number
}

/** Output whose text can change after it was shown (a streaming answer); its text is read at each paint. */
export interface Block {
  /** The block changed: repaint what of it is visible. */
  update(): void
}

const ESC = '\x1b'
/** Output lines and blocks kept: many screens' worth, so a resize always has enough to draw. */
const MAX_ENTRIES = 2000
const at = (row: number, col = 1) => `${ESC}[${row};${col}H`

type Wrap = (text: string, columns: number, options: { hard: boolean; trim: boolean }) => string
/** wrap-ansi and string-width, loaded right after the first paint (they cost tens of ms to import). */
let wrapAnsi: Wrap | undefined
let width: (text: string) => number = textWidth
let loadingWrap: Promise<void> | undefined
function loadWrap(): Promise<void> {
  return (loadingWrap ??= Promise.all([import('wrap-ansi'), import('string-width')]).then(([wrap, sw]) => {
    wrapAnsi = wrap.default
    width = sw.default
  }))
}

/** Tabs as spaces to the next multiple of 8 columns (a tab has no width of its own to measure). */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line
  const parts = line.split('\t')
  let out = parts[0]!
  for (const part of parts.slice(1)) out += ' '.repeat(8 - (width(out) % 8)) + part
  return out
}

/** Cuts a line every `columns` columns, escape codes kept whole (until wrap-ansi is loaded; the screen is redrawn then). */
function cut(line: string, columns: number): string[] {
  const rows: string[] = []
  let row = ''
  let used = 0
  for (const [piece] of line.matchAll(/\x1b\[[0-9;?]*[ -\/]*[@-~]|[\s\S]/gu)) {
    const w = piece.startsWith('\x1b') ? 0 : charWidth(piece)
    if (used + w > columns) rows.push(row), (row = ''), (used = 0)
    row += piece
    used += w
  }
  return [...rows, row]
}

/** Wrapped lines by width and text: a streaming answer is wrapped again on every delta, and measuring
 *  (string-width) is the costly part, so lines that did not change are not measured again. */
const wrapped = new Map<string, string[]>()
const WRAP_CACHE_LINES = 4000

/** Text broken into rows of at most `columns` columns: at spaces, long words cut; styles carried over. */
export function wrapRows(text: string, columns: number): string[] {
  return text.split('\n').flatMap((raw) => {
    if (raw === '') return ['']
    const key = `${columns}\0${raw}`
    const known = wrapAnsi && wrapped.get(key)
    if (known) return known
    // A carriage return would move the cursor within a row the screen believes it drew.
    const line = expandTabs(raw.replace(/\r/g, ''))
    if (!wrapAnsi) return width(line) <= columns ? [line] : cut(line, columns)
    const rows = width(line) <= columns ? [line] : wrapAnsi(line, columns, { hard: true, trim: false }).split('\n')
    if (wrapped.size >= WRAP_CACHE_LINES) wrapped.clear()
    wrapped.set(key, rows)
    return rows
  })
}

/** Resolves once word wrapping is available (tests; the screen redraws itself when it is). */
export const wordWrapReady = (): Promise<void> => loadWrap()

interface Entry {
  /** The text for a row width (a block may lay itself out for it, e.g. a table). */
  text: (columns: number) => string
  /** Bumped on change; the wrapped rows are cached per width and version. */
  version: number
  cache?: { width: number; version: number; rows: string[] }
}

export class Screen {
  private inputLines: string[] = ['']
  private cursor = { row: 0, col: 0 }
  private statusVisible: boolean
  private statusText = ''
  private started = false
  private rows: number
  private cols: number
  /** Finished output first; the last entry is the open line that print() appends to. */
  private entries: Entry[] = []
  private open = ''
  /** What the output region shows now, one string per row (index 0 = row 1); undefined = unknown. */
  private shown: (string | undefined)[] = []
  private shownTotal = 0

  constructor(
    private readonly out: TtyOut,
    options: { statusBar: boolean },
  ) {
    this.statusVisible = options.statusBar
    this.rows = Math.max(4, out.rows ?? 24)
    this.cols = Math.max(10, out.columns ?? 80)
    this.entries.push(this.openEntry())
  }

  private openEntry(): Entry {
    return { text: () => this.open, version: 0 }
  }

  get columns(): number {
    return this.cols
  }

  /** Most input lines shown at once (the editor scrolls within them). */
  get maxInputRows(): number {
    return Math.max(1, Math.min(8, Math.floor((this.rows - (this.statusVisible ? 1 : 0)) / 3)))
  }

  private get reserved(): number {
    return this.inputLines.length + (this.statusVisible ? 1 : 0)
  }

  private get bottom(): number {
    return Math.max(1, this.rows - this.reserved)
  }

  start(): void {
    // A clean screen (tmux and most terminals keep what was there in the scrollback).
    this.out.write(`${ESC}[?2004h${ESC}[H${ESC}[2J`)
    this.started = true
    this.repaintAll()
    if (!wrapAnsi) setImmediate(() => void loadWrap().then(() => this.refresh(), () => undefined))
  }

  /** Puts the terminal back: no region, input and bar cleared, the cursor on a fresh line after the output. */
  stop(): void {
    if (!this.started) return
    this.started = false
    const used = Math.min(this.bottom, this.total())
    this.out.write(`${ESC}[?2004l${ESC}[r${at(Math.min(this.rows, used + 1))}${ESC}[J${ESC}[?25h`)
  }

  /** Appends text to the output (\n ends a line). */
  print(text: string): void {
    if (!this.started) return void this.out.write(text)
    const parts = text.split('\n')
    this.open += parts[0]
    const current = this.entries[this.entries.length - 1]!
    current.version++
    for (const part of parts.slice(1)) {
      const line = this.open
      this.entries[this.entries.length - 1] = { text: () => line, version: 0 }
      this.open = part
      this.entries.push(this.openEntry())
    }
    this.forget()
    this.paint()
  }

  /** Drops the oldest output once there is far more than a screen can show (it cannot be scrolled to). */
  private forget(): void {
    const excess = this.entries.length - MAX_ENTRIES
    if (excess <= 0) return
    const dropped = this.entries.splice(0, excess)
    // The rows still count as drawn-and-gone, so the next paint does not mistake this for a change.
    this.shownTotal -= dropped.reduce((sum, e) => sum + this.rowsOf(e).length, 0)
  }

  /** Adds output whose text may change (it starts on a fresh line; output after it does too). */
  block(text: (columns: number) => string): Block {
    if (this.open) this.print('\n')
    const entry: Entry = { text, version: 0 }
    this.entries.splice(this.entries.length - 1, 0, entry)
    this.paint()
    return {
      update: () => {
        entry.version++
        this.paint()
      },
    }
  }

  /** Every block is rendered again (e.g. a renderer became available) and the screen repainted. */
  refresh(): void {
    for (const entry of this.entries) entry.version++
    this.paint()
  }

  setInput(lines: string[], cursor: { row: number; col: number }): void {
    const next = lines.length ? lines : ['']
    const oldBottom = this.bottom
    this.inputLines = next
    this.cursor = cursor
    if (!this.started) return
    if (oldBottom !== this.bottom) return this.repaintAll()
    this.drawInput()
  }

  setStatus(text: string): void {
    this.statusText = text
    if (this.started && this.statusVisible) this.out.write(`${ESC}[?25l${at(this.rows)}${ESC}[2K${text}${this.toCursor()}${ESC}[?25h`)
  }

  get statusBarVisible(): boolean {
    return this.statusVisible
  }

  setStatusVisible(visible: boolean): void {
    if (visible === this.statusVisible) return
    this.statusVisible = visible
    if (this.started) this.repaintAll()
  }

  /** New terminal size: every row is drawn again from the output model. */
  resize(columns: number, rows: number): void {
    this.cols = Math.max(10, columns)
    this.rows = Math.max(4, rows)
    if (this.started) this.repaintAll()
  }

  redraw(): void {
    if (this.started) this.repaintAll()
  }

  /** Forgets what the terminal shows and draws all of it: region, output rows, input, status bar. */
  private repaintAll(): void {
    this.shown = []
    this.out.write(`${ESC}[?25l${ESC}[r`)
    this.paint()
    this.drawInput()
    if (this.statusVisible) this.setStatus(this.statusText)
  }

  private rowsOf(entry: Entry): string[] {
    const c = entry.cache
    if (c && c.width === this.cols && c.version === entry.version) return c.rows
    const rows = wrapRows(entry.text(this.cols), this.cols)
    entry.cache = { width: this.cols, version: entry.version, rows }
    return rows
  }

  private total(): number {
    return this.entries.reduce((sum, e) => sum + this.rowsOf(e).length, 0)
  }

  /** The last `n` output rows (fewer when there is less output). */
  private tail(n: number): string[] {
    const out: string[] = []
    for (let i = this.entries.length - 1; i >= 0 && out.length < n; i--) {
      const rows = this.rowsOf(this.entries[i]!)
      out.unshift(...rows.slice(Math.max(0, rows.length - (n - out.length))))
    }
    return out
  }

  /** Brings the output region in line with the model: scrolls by what was added, rewrites rows that differ. */
  private paint(): void {
    if (!this.started) return
    const height = this.bottom
    const total = this.total()
    const want = this.tail(height)
    let text = `${ESC}[?25l`
    if (this.shown.length === 0) {
      text += `${ESC}[1;${height}r`
      this.shown = new Array(height).fill(undefined)
    } else {
      // Output added past the bottom: scroll the region by as much, then fix the rows that differ.
      const k = Math.max(0, total - height) - Math.max(0, this.shownTotal - height)
      if (k > 0 && k < height) {
        text += `${at(height)}${'\n'.repeat(k)}`
        this.shown = [...this.shown.slice(k), ...new Array<string>(k).fill('')]
      }
    }
    for (let i = 0; i < height; i++) {
      const row = want[i] ?? ''
      if (this.shown[i] === row) continue
      text += `${at(i + 1)}${ESC}[0m${ESC}[2K${row}${ESC}[0m`
      this.shown[i] = row
    }
    this.shownTotal = total
    this.out.write(`${text}${this.toCursor()}${ESC}[?25h`)
  }

  private drawInput(): void {
    const top = this.bottom + 1
    let text = `${ESC}[?25l`
    this.inputLines.forEach((line, i) => (text += `${at(top + i)}${ESC}[2K${line}`))
    this.out.write(`${text}${this.toCursor()}${ESC}[?25h`)
  }

  private toCursor(): string {
    return at(this.bottom + 1 + this.cursor.row, this.cursor.col + 1)
  }
}
