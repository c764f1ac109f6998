// Markdown tables drawn for the terminal's width: columns keep their natural width when the table
// fits, else the widest give up room and their cells wrap inside the column (box borders stay
// straight instead of being broken by the screen's line wrapping).

import { wrapRows } from './screen.ts'
import { textWidth } from './theme.ts'

export type Align = 'left' | 'right' | 'center' | null

export interface TableStyle {
  border(text: string): string
  head(text: string): string
}

/** Column widths summing to at most `room`: narrow columns keep theirs, the rest share what is left. */
function fit(natural: number[], room: number): number[] {
  const widths = [...natural]
  const total = () => widths.reduce((a, b) => a + b, 0)
  if (total() <= room) return widths
  const open = new Set(widths.map((_, i) => i))
  let left = room
  // Water-filling: a column narrower than its fair share keeps its width; the others split the rest.
  for (let changed = true; changed && open.size; ) {
    changed = false
    const share = Math.floor(left / open.size)
    for (const i of [...open]) {
      if (natural[i]! <= share) {
        widths[i] = natural[i]!
        left -= natural[i]!
        open.delete(i)
        changed = true
      }
    }
  }
  const share = Math.max(3, Math.floor(left / Math.max(1, open.size)))
  let extra = Math.max(0, left - share * open.size)
  for (const i of open) {
    widths[i] = share + (extra > 0 ? 1 : 0)
    if (extra > 0) extra--
  }
  return widths
}

function pad(text: string, width: number, align: Align): string {
  const gap = Math.max(0, width - textWidth(text))
  if (align === 'right') return ' '.repeat(gap) + text
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + text + ' '.repeat(gap - Math.floor(gap / 2))
  return text + ' '.repeat(gap)
}

/** The table as lines of at most `columns` columns (when each column can have at least 3). */
export function drawTable(head: string[], rows: string[][], align: Align[], columns: number, style: TableStyle): string {
  const count = Math.max(head.length, ...rows.map((r) => r.length))
  const cell = (row: string[], i: number) => row[i] ?? ''
  const natural = Array.from({ length: count }, (_, i) => Math.max(1, ...[head, ...rows].map((r) => Math.max(0, ...cell(r, i).split('\n').map(textWidth)))))
  // Each column takes its width plus a space on each side and one border; one more border closes.
  const widths = fit(natural, columns - 3 * count - 1)
  const rule = (l: string, m: string, r: string) => style.border(l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r)
  const line = (row: string[], paint: (t: string) => string) => {
    const cells = widths.map((w, i) => wrapRows(cell(row, i), w).map((r) => r.replace(/ +$/, '')))
    const height = Math.max(...cells.map((c) => c.length))
    const out: string[] = []
    for (let k = 0; k < height; k++) {
      const parts = cells.map((c, i) => ` ${paint(pad(c[k] ?? '', widths[i]!, align[i] ?? null))} `)
      out.push(style.border('│') + parts.join(style.border('│')) + style.border('│'))
    }
    return out
  }
  return [rule('┌', '┬', '┐'), ...line(head, style.head), rule('├', '┼', '┤'), ...rows.flatMap((r) => line(r, (t) => t)), rule('└', '┴', '┘')].join('\n')
}
