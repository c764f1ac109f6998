// A minimal server-sent-events reader over a fetch body: yields the parsed JSON `data` of each event.
// The event being read is held until its blank line: past `maxEventChars` (MAX_ANSWER_BYTES by
// default) the read fails, and each chunk is searched for the blank line from where the previous
// search stopped, so one endless event costs neither unbounded memory nor quadratic time. Leaving
// early (a consumer that throws or breaks) cancels the body, which closes the connection.

import { AnswerTooLargeError, MAX_ANSWER_BYTES } from 'agent/sdk'

const BLANK_LINE = /\r?\n\r?\n/g

export async function* readSse(body: ReadableStream<Uint8Array>, signal: AbortSignal, maxEventChars: number = MAX_ANSWER_BYTES): AsyncGenerator<any> {
  const decoder = new TextDecoder()
  const reader = body.getReader()
  const onAbort = () => void reader.cancel().catch(() => {})
  signal.addEventListener('abort', onAbort, { once: true })
  let buffer = ''
  let finished = false
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (signal.aborted) throw signal.reason
      if (done) {
        finished = true
        break
      }
      // A blank line may straddle the chunks: search again from a few characters before the new text.
      let from = Math.max(0, buffer.length - 3)
      buffer += decoder.decode(value, { stream: true })
      for (;;) {
        BLANK_LINE.lastIndex = from
        const match = BLANK_LINE.exec(buffer)
        if (!match) break
        const raw = buffer.slice(0, match.index)
        buffer = buffer.slice(match.index + match[0].length)
        from = 0
        const data = raw
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n')
        if (!data || data === '[DONE]') continue
        yield JSON.parse(data)
      }
      if (buffer.length > maxEventChars) throw new AnswerTooLargeError(maxEventChars, 'stream event')
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    if (!finished) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
