// The terminal layout of the interactive chat: a scrolling output region on top (DECSTBM), the input
// lines below it and the status bar on the last row. Output is written at the saved output cursor
// (DECSC/DECRC) so streaming text and typing never mix; every write ends at the input cursor.
// Output is wrapped here, not by the terminal: a saved cursor loses the terminal's pending wrap, and
// the next character would overwrite the last column.

import { charWidth } from './theme.ts'

export interface TtyOut {
  write(text: string): boolean
  readonly columns?: number
  readonly rows?: number
}

const ESC = '\x1b'
const at = (row: number, col = 1) => `${ESC}[${row};${col}H`

export class Screen {
  private inputLines: string[] = ['']
  private cursor = { row: 0, col: 0 }
  private statusVisible: boolean
  private statusText = ''
  private started = false
  /** Display column of the output cursor. */
  private outCol = 0
  private rows: number
  private cols: number

  constructor(
    private readonly out: TtyOut,
    options: { statusBar: boolean },
  ) {
    this.statusVisible = options.statusBar
    this.rows = Math.max(4, out.rows ?? 24)
    this.cols = Math.max(10, out.columns ?? 80)
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
    return this.rows - this.reserved
  }

  start(): void {
    const n = this.reserved
    // Make room below the cursor, come back, remember it as the output cursor, then fence the region.
    this.out.write(`${ESC}[?2004h${'\n'.repeat(n)}${ESC}[${n}A\r${ESC}7${ESC}[1;${this.bottom}r${ESC}8${ESC}7`)
    this.started = true
    this.redraw()
  }

  /** Puts the terminal back: no region, input and bar cleared, the cursor on a fresh line after the output. */
  stop(): void {
    if (!this.started) return
    this.started = false
    this.out.write(`${ESC}[?2004l${ESC}[r${ESC}8\r\n${ESC}[J${ESC}[?25h`)
  }

  /** Writes text into the output region (where the last output ended). */
  print(text: string): void {
    if (!this.started) return void this.out.write(text)
    this.out.write(`${ESC}[?25l${ESC}8${this.wrap(text)}${ESC}7${this.toCursor()}${ESC}[?25h`)
  }

  /** Breaks text at the terminal width (escape sequences take no room; \n becomes \r\n). */
  private wrap(text: string): string {
    let out = ''
    for (let i = 0; i < text.length; ) {
      const ch = text[i]!
      if (ch === ESC) {
        const m = /^\x1b(\[[0-9;?]*[ -\/]*[@-~]|[78])/.exec(text.slice(i))
        const seq = m ? m[0] : ch
        out += seq
        i += seq.length
        continue
      }
      const cp = text.codePointAt(i)!
      const c = String.fromCodePoint(cp)
      i += c.length
      if (c === '\n') {
        out += '\r\n'
        this.outCol = 0
      } else if (c === '\r') {
        out += '\r'
        this.outCol = 0
      } else {
        const w = charWidth(c)
        if (w > 0 && this.outCol + w > this.cols) {
          out += '\r\n'
          this.outCol = 0
        }
        out += c
        this.outCol += w
      }
    }
    return out
  }

  setInput(lines: string[], cursor: { row: number; col: number }): void {
    const next = lines.length ? lines : ['']
    const oldBottom = this.bottom
    this.inputLines = next
    if (this.started && oldBottom !== this.bottom) this.refence(oldBottom, this.bottom)
    this.cursor = cursor
    if (this.started) this.drawInput()
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
    if (!this.started) return void (this.statusVisible = visible)
    const oldBottom = this.bottom
    this.out.write(`${at(this.rows)}${ESC}[2K`)
    this.statusVisible = visible
    this.refence(oldBottom, this.bottom)
    this.redraw()
  }

  /** New terminal size: fence again and redraw; output continues on a fresh line. */
  resize(columns: number, rows: number): void {
    this.cols = Math.max(10, columns)
    this.rows = Math.max(4, rows)
    if (!this.started) return
    this.out.write(`${ESC}[r${at(this.bottom)}\r\n${ESC}[J${ESC}7${ESC}[1;${this.bottom}r${ESC}8${ESC}7`)
    this.outCol = 0
    this.redraw()
  }

  redraw(): void {
    if (!this.started) return
    this.drawInput()
    if (this.statusVisible) this.setStatus(this.statusText)
  }

  /** Moves the bottom of the output region; rows taken from it are scrolled away, rows given back blanked. */
  private refence(oldBottom: number, newBottom: number): void {
    const taken = oldBottom - newBottom
    let text = ''
    // Scroll the output up to free rows, keeping the output cursor on its text.
    if (taken > 0) text += `${ESC}8${ESC}[${taken}S${ESC}[${taken}A${ESC}7`
    for (let row = oldBottom + 1; row <= newBottom; row++) text += `${at(row)}${ESC}[2K`
    this.out.write(`${text}${ESC}[1;${Math.max(1, newBottom)}r${ESC}8`)
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
