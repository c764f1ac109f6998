// A minimal server-sent-events reader over a fetch body: yields the parsed JSON `data` of each event.

export async function* readSse(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<any> {
  const decoder = new TextDecoder()
  const reader = body.getReader()
  const onAbort = () => void reader.cancel().catch(() => {})
  signal.addEventListener('abort', onAbort, { once: true })
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (signal.aborted) throw signal.reason
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let cut: number
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const raw = buffer.slice(0, cut)
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '')
        const data = raw
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n')
        if (!data || data === '[DONE]') continue
        yield JSON.parse(data)
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    reader.releaseLock()
  }
}
