// Live output of a foreground command as progress lines (session.progress): whole lines only, at
// most a few per interval and each bounded, so a chatty command cannot flood a chat, an SSE stream
// or an editor's tool panel. The runtime redacts every line before it leaves and only then cuts it
// to what is shown (runtime/tools.ts): a cut before the redaction would leave the part of a secret
// that crosses it. So the bound here is a generous one, and it cuts between words only (a secret
// holds no blank); the rest of a line sent before its end is dropped, never sent as a line of its
// own (it would begin anywhere, perhaps inside a secret).

import { terminalSafe } from 'agent/sdk'

/** Lines kept per flush: the newest ones (a tail is what a user watches). */
const LINES_PER_FLUSH = 5
/** Characters kept of one line at most (the runtime shows fewer, once redacted). */
const LINE_CHARS = 1600
/** A partial line longer than this is sent without waiting for its end (a progress bar without newlines). */
const PENDING_CHARS = LINE_CHARS

export interface OutputProgress {
  push(chunk: string): void
  /** Stops the timer; lines not sent yet are dropped (the result carries the whole output). */
  close(): void
}

/** At most LINE_CHARS of `line`, cut back to the end of a word when the cut would fall inside one. */
export function boundLine(line: string, max = LINE_CHARS): string {
  if (line.length <= max) return line
  let head = line.slice(0, max)
  if (/\S/.test(line[max]!)) head = head.replace(/\S+$/, '')
  return `${head.trimEnd()}…`
}

/** A no-op when the session has no progress channel. */
export function outputProgress(send: ((text: string) => void) | undefined, intervalMs = 250, hide?: (line: string) => boolean): OutputProgress {
  if (!send) return { push: () => undefined, close: () => undefined }
  let partial = ''
  // The rest of a line whose start was sent before its end: dropped up to the line's end.
  let skipping = false
  let ready: string[] = []
  let timer: NodeJS.Timeout | undefined
  let closed = false
  const flush = () => {
    timer = undefined
    if (closed || !ready.length) return
    const lines = ready.slice(-LINES_PER_FLUSH)
    ready = []
    try {
      send(lines.join('\n'))
    } catch {
      // a listener that fails must not fail the command
    }
  }
  return {
    push(chunk) {
      if (closed) return
      const parts = (partial + chunk).split(/\r?\n|\r/)
      partial = parts.pop() ?? ''
      if (skipping) {
        if (parts.length) {
          parts.shift()
          skipping = false
        } else partial = ''
      }
      if (partial.length > PENDING_CHARS) {
        parts.push(partial)
        partial = ''
        skipping = true
      }
      for (const raw of parts) {
        const line = terminalSafe(raw)
        if (!line.trim() || hide?.(line)) continue
        ready.push(boundLine(line))
      }
      if (ready.length > LINES_PER_FLUSH) ready = ready.slice(-LINES_PER_FLUSH)
      if (ready.length && !timer) {
        timer = setTimeout(flush, intervalMs)
        timer.unref?.()
      }
    },
    close() {
      closed = true
      clearTimeout(timer)
    },
  }
}
