// Live output of a foreground command as progress lines (session.progress): whole lines only, at
// most a few per interval and each bounded, so a chatty command cannot flood a chat, an SSE stream
// or an editor's tool panel. The runtime redacts every line before it leaves (runtime/tools.ts).

import { terminalSafe } from 'agent/sdk'

/** Lines kept per flush: the newest ones (a tail is what a user watches). */
const LINES_PER_FLUSH = 5
/** Characters kept of one line. */
const LINE_CHARS = 400
/** A partial line longer than this is sent as it is (a progress bar without newlines). */
const PENDING_CHARS = 4 * LINE_CHARS

export interface OutputProgress {
  push(chunk: string): void
  /** Stops the timer; lines not sent yet are dropped (the result carries the whole output). */
  close(): void
}

/** A no-op when the session has no progress channel. */
export function outputProgress(send: ((text: string) => void) | undefined, intervalMs = 250, hide?: (line: string) => boolean): OutputProgress {
  if (!send) return { push: () => undefined, close: () => undefined }
  let partial = ''
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
      if (partial.length > PENDING_CHARS) {
        parts.push(partial)
        partial = ''
      }
      for (const raw of parts) {
        const line = terminalSafe(raw)
        if (!line.trim() || hide?.(line)) continue
        ready.push(line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line)
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
