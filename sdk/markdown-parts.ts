// Long answers for chat platforms with a message size limit: markdown split into parts at a
// paragraph, line or word boundary, with a code fence cut by a split closed at the end of one part
// and reopened (same fence and language) at the start of the next. One splitter for every adapter
// that sends markdown (Discord, Matrix, DingTalk …); plain text uses splitText (gateway.ts).

/** A reopened fence keeps at most this much of its info string (a language, rarely more). */
const MAX_INFO = 40
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

interface Fence {
  marker: string
  info: string
}

/** The code fence still open at the end of `text`, given the one open at its start. */
export function openFenceAfter(text: string, open?: Fence): Fence | undefined {
  let state = open
  for (const line of text.split('\n')) {
    const match = FENCE.exec(line)
    if (!match) continue
    const marker = match[1]!
    const rest = match[2]!
    if (!state) {
      // A backtick fence's info string cannot contain a backtick (that is inline code).
      if (marker[0] === '`' && rest.includes('`')) continue
      state = { marker, info: rest.trim() }
    } else if (marker[0] === state.marker[0] && marker.length >= state.marker.length && !rest.trim()) {
      state = undefined
    }
  }
  return state
}

/** A hard cut at `budget`, never between the two halves of a surrogate pair. */
function hardCut(text: string, budget: number): [number, number] {
  let end = Math.min(budget, text.length)
  const code = text.charCodeAt(end - 1)
  if (end > 1 && code >= 0xd800 && code <= 0xdbff) end--
  return [end, end]
}

/**
 * Where the inline code span around `at` (on its line) starts, or -1 when `at` is outside every span.
 * A span opens with a run of backticks and closes with the next run of the same length.
 */
export function codeSpanStart(text: string, at: number): number {
  const start = text.lastIndexOf('\n', at - 1) + 1
  const end = text.indexOf('\n', at)
  const line = text.slice(start, end === -1 ? text.length : end)
  const runs = [...line.matchAll(/`+/g)]
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i]!
    const close = runs.findIndex((run, j) => j > i && run[0].length === open[0].length)
    if (close === -1) continue
    if (start + open.index! < at && at < start + runs[close]!.index!) return start + open.index!
    i = close
  }
  return -1
}

/** The last space of `window` at or after `min` that is not inside an inline code span, or -1. */
function spaceOutsideCode(text: string, window: string, min: number): number {
  let space = window.lastIndexOf(' ')
  while (space >= min && space > 0) {
    const span = codeSpanStart(text, space)
    if (span === -1) return space
    space = span > 0 ? window.lastIndexOf(' ', span - 1) : -1
  }
  return -1
}

/**
 * Where to end a part of at most `budget` characters of `text`: [end of the part, start of the rest].
 * A paragraph break, else a line break, else a space (outside inline code) in the second half of the
 * window; else one in its second quarter; else a hard cut (a part of a few characters helps nobody).
 */
function cutPoint(text: string, budget: number): [number, number] {
  const window = text.slice(0, budget + 1)
  for (const min of [Math.floor(budget / 2), Math.floor(budget / 4)]) {
    const paragraph = window.lastIndexOf('\n\n')
    if (paragraph >= min && paragraph > 0) return [paragraph, paragraph + 2]
    const line = window.lastIndexOf('\n')
    if (line >= min && line > 0) return [line, line + 1]
    const space = spaceOutsideCode(text, window, min)
    if (space >= min && space > 0) return [space, space + 1]
  }
  return hardCut(text, budget)
}

/** Splits markdown into messages of at most `max` characters (≥ 100), code fences balanced in each. */
export function markdownParts(text: string, max: number): string[] {
  if (max < 100) throw new RangeError('max must be at least 100')
  const parts: string[] = []
  let rest = text
  let open: Fence | undefined
  while (rest.length > 0) {
    if (open) {
      // The fence closes right where the previous part ended: nothing to reopen.
      const first = rest.split('\n', 1)[0]!
      const match = FENCE.exec(first)
      if (match && match[1]![0] === open.marker[0] && match[1]!.length >= open.marker.length && !match[2]!.trim()) {
        rest = rest.slice(first.length).replace(/^\n+/, '')
        open = undefined
        continue
      }
    }
    const prefix = open ? `${open.marker}${open.info.slice(0, MAX_INFO)}\n` : ''
    if (prefix.length + rest.length <= max) {
      if (rest.trim()) parts.push(prefix + rest)
      break
    }
    let budget = max - prefix.length - 4
    let body = ''
    let closing = ''
    let next = 0
    let end: Fence | undefined
    for (;;) {
      let [cut, resume] = cutPoint(rest, budget)
      // A part never ends on the line that opens a fence: that fence goes to the next part.
      const lastLine = rest.lastIndexOf('\n', cut - 1) + 1
      if (FENCE.test(rest.slice(lastLine, cut)) && openFenceAfter(rest.slice(0, cut), open)) [cut, resume] = lastLine > 0 ? [lastLine - 1, lastLine] : hardCut(rest, budget)
      end = openFenceAfter(rest.slice(0, cut), open)
      body = rest.slice(0, cut).replace(/\n+$/, '')
      if (!end) body = body.trimEnd()
      closing = end ? `\n${end.marker}` : ''
      next = resume
      const excess = prefix.length + body.length + closing.length - max
      if (excess <= 0 || budget <= 1) break
      // A long fence opened inside this part needs more room to close: cut earlier.
      budget = Math.max(1, budget - excess)
    }
    if (body.trim()) parts.push(prefix + body + closing)
    rest = rest.slice(Math.max(next, 1))
    open = end
    if (!open) rest = rest.replace(/^\n+/, '')
  }
  return parts
}
