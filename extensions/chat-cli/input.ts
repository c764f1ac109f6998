// The line editor of the interactive chat: multi-line text (Ctrl-J, Alt-Enter or a trailing `\`
// continue a line; pasted newlines are kept), cursor movement, word and line deletion, history on
// Up/Down, Tab completion. It only holds state and answers keys; screen.ts draws its layout.

import { charWidth } from './theme.ts'

export interface Key {
  name?: string
  ctrl?: boolean
  meta?: boolean
  shift?: boolean
  sequence?: string
}

export type EditorAction = 'none' | 'changed' | 'submit' | 'interrupt' | 'eof' | 'complete' | 'redraw'

export interface Layout {
  lines: string[]
  cursor: { row: number; col: number }
}

const chars = (text: string) => Array.from(text)

export class LineEditor {
  /** Characters (code points) of the buffer; `\n` separates lines. */
  private text: string[] = []
  private pos = 0
  private pasting = false
  private historyIndex = -1
  private draft: string[] = []

  constructor(
    readonly history: string[] = [],
    readonly prompt = '› ',
    readonly continuation = '  ',
  ) {}

  get value(): string {
    return this.text.join('')
  }

  get cursorAtEnd(): boolean {
    return this.pos === this.text.length
  }

  get cursorIndex(): number {
    return this.pos
  }

  set(value: string, cursor = chars(value).length): void {
    this.text = chars(value)
    this.pos = Math.max(0, Math.min(cursor, this.text.length))
  }

  clear(): void {
    this.set('')
    this.historyIndex = -1
  }

  /** Records a submitted entry (no consecutive duplicates). */
  remember(entry: string): void {
    if (entry.trim() && this.history[this.history.length - 1] !== entry) this.history.push(entry)
    this.historyIndex = -1
  }

  insert(text: string): void {
    const add = chars(text.replace(/\r\n?/g, '\n'))
    this.text.splice(this.pos, 0, ...add)
    this.pos += add.length
  }

  private lineStart(at = this.pos): number {
    let i = at
    while (i > 0 && this.text[i - 1] !== '\n') i--
    return i
  }

  private lineEnd(at = this.pos): number {
    let i = at
    while (i < this.text.length && this.text[i] !== '\n') i++
    return i
  }

  private moveVertical(delta: -1 | 1): boolean {
    const start = this.lineStart()
    const column = this.pos - start
    if (delta < 0) {
      if (start === 0) return false
      const prevStart = this.lineStart(start - 1)
      this.pos = Math.min(prevStart + column, start - 1)
    } else {
      const end = this.lineEnd()
      if (end === this.text.length) return false
      const nextEnd = this.lineEnd(end + 1)
      this.pos = Math.min(end + 1 + column, nextEnd)
    }
    return true
  }

  private recall(delta: -1 | 1): void {
    if (this.history.length === 0) return
    if (this.historyIndex === -1) {
      if (delta > 0) return
      this.draft = [...this.text]
      this.historyIndex = this.history.length - 1
    } else {
      this.historyIndex += delta
      if (this.historyIndex >= this.history.length) {
        this.historyIndex = -1
        this.text = this.draft
        this.pos = this.text.length
        return
      }
      this.historyIndex = Math.max(0, this.historyIndex)
    }
    this.text = chars(this.history[this.historyIndex]!)
    this.pos = this.text.length
  }

  private deleteWordBack(): void {
    let i = this.pos
    while (i > 0 && /\s/.test(this.text[i - 1]!)) i--
    while (i > 0 && !/\s/.test(this.text[i - 1]!)) i--
    this.text.splice(i, this.pos - i)
    this.pos = i
  }

  handleKey(str: string | undefined, key: Key = {}): EditorAction {
    const name = key.name
    if (name === 'paste-start') return void (this.pasting = true), 'none'
    if (name === 'paste-end') return void (this.pasting = false), 'changed'
    if (this.pasting) {
      if (name === 'return' || name === 'enter') this.insert('\n')
      else if (str) this.insert(str)
      return 'changed'
    }
    if (key.ctrl && name === 'c') return 'interrupt'
    if (key.ctrl && name === 'd') {
      if (this.text.length === 0) return 'eof'
      if (this.pos < this.text.length) this.text.splice(this.pos, 1)
      return 'changed'
    }
    if (name === 'return') {
      if (key.meta) return this.insert('\n'), 'changed'
      const start = this.lineStart()
      if (this.pos === this.lineEnd() && this.pos > start && this.text[this.pos - 1] === '\\') {
        this.text.splice(this.pos - 1, 1, '\n')
        return 'changed'
      }
      return 'submit'
    }
    if (name === 'enter' || (key.ctrl && name === 'j')) return this.insert('\n'), 'changed'
    if (name === 'tab') return 'complete'
    if (key.ctrl && name === 'l') return 'redraw'
    switch (key.ctrl ? `C-${name}` : key.meta ? `M-${name}` : name) {
      case 'backspace':
      case 'C-h':
        if (this.pos > 0) this.text.splice(--this.pos, 1)
        return 'changed'
      case 'delete':
        if (this.pos < this.text.length) this.text.splice(this.pos, 1)
        return 'changed'
      case 'left':
      case 'C-b':
        this.pos = Math.max(0, this.pos - 1)
        return 'changed'
      case 'right':
      case 'C-f':
        this.pos = Math.min(this.text.length, this.pos + 1)
        return 'changed'
      case 'home':
      case 'C-a':
        this.pos = this.lineStart()
        return 'changed'
      case 'end':
      case 'C-e':
        this.pos = this.lineEnd()
        return 'changed'
      case 'up':
      case 'C-p':
        if (!this.moveVertical(-1)) this.recall(-1)
        return 'changed'
      case 'down':
      case 'C-n':
        if (!this.moveVertical(1)) this.recall(1)
        return 'changed'
      case 'C-u':
        this.text.splice(this.lineStart(), this.pos - this.lineStart())
        this.pos = this.lineStart()
        return 'changed'
      case 'C-k':
        this.text.splice(this.pos, this.lineEnd() - this.pos)
        return 'changed'
      case 'C-w':
      case 'M-backspace':
        this.deleteWordBack()
        return 'changed'
    }
    if (str && !key.ctrl && !key.meta && charWidth(str) > 0 && str !== '\x7f') {
      this.insert(str)
      return 'changed'
    }
    return 'none'
  }

  /** Wrapped rows of prompt + text for `columns`, and where the cursor is; at most `maxRows` around the cursor. */
  layout(columns: number, maxRows = Infinity, prompt = this.prompt): Layout {
    const rows: string[] = []
    let row = ''
    let width = 0
    let cursor = { row: 0, col: 0 }
    const startRow = (prefix: string) => {
      row = prefix
      width = Array.from(prefix).reduce((w, ch) => w + charWidth(ch), 0)
    }
    startRow(prompt)
    const markCursor = () => {
      if (width >= columns) {
        rows.push(row)
        startRow('')
      }
      cursor = { row: rows.length, col: width }
    }
    for (let i = 0; i <= this.text.length; i++) {
      if (i === this.pos) markCursor()
      if (i === this.text.length) break
      const ch = this.text[i]!
      if (ch === '\n') {
        rows.push(row)
        startRow(this.continuation)
        continue
      }
      const w = charWidth(ch)
      if (width + w > columns) {
        rows.push(row)
        startRow('')
      }
      row += ch
      width += w
    }
    rows.push(row)
    if (rows.length <= maxRows) return { lines: rows, cursor }
    const first = Math.max(0, Math.min(cursor.row - maxRows + 1, rows.length - maxRows))
    return { lines: rows.slice(first, first + maxRows), cursor: { row: cursor.row - first, col: cursor.col } }
  }
}
