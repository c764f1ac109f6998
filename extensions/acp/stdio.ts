// The protocol's stdio: web streams over the process's stdin and the protocol's stdout for the SDK.
// An editor parses every stdout line as JSON-RPC: the command is declared `stdio: 'protocol'`, so the
// CLI hands it the real stdout (`ctx.protocolOut`) and sends every other write, from extension load
// on, to the log on stderr. Requests sent before the initialize answer wait for it (init-gate.ts).

import { InitGate } from './init-gate.ts'

export interface ProtocolStdio {
  /** Bytes the SDK writes: each one goes to the real stdout. */
  output: WritableStream<Uint8Array>
  /** Bytes read from stdin; closes when the editor closes stdin. */
  input: ReadableStream<Uint8Array>
  /** Resolves when stdin has ended (or failed). */
  readonly ended: Promise<void>
  /** Stops reading stdin. */
  release(): void
}

export function protocolStdio(stdin: NodeJS.ReadStream = process.stdin, stdout: NodeJS.WritableStream = process.stdout): ProtocolStdio {
  let gate: InitGate | undefined
  const output = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        stdout.write(chunk, (error?: Error | null) => (error ? reject(error) : resolve()))
      }).then(() => gate?.written(chunk)),
  })

  let endStdin: () => void = () => undefined
  const ended = new Promise<void>((resolve) => (endStdin = resolve))
  let closed = false
  const listeners: Array<[string, (...args: any[]) => void]> = []
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      gate = new InitGate((bytes) => {
        if (!closed) controller.enqueue(bytes)
      })
      const finish = (error?: Error) => {
        if (closed) return
        closed = true
        if (error) controller.error(error)
        else controller.close()
        endStdin()
      }
      const on = (event: string, fn: (...args: any[]) => void) => {
        listeners.push([event, fn])
        stdin.on(event, fn)
      }
      on('data', (chunk: Buffer | string) => {
        if (!closed) gate!.input(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
      })
      on('end', () => finish())
      on('close', () => finish())
      on('error', (error: Error) => finish(error))
    },
    cancel() {
      closed = true
      endStdin()
    },
  })

  return {
    output,
    input,
    ended,
    release() {
      for (const [event, fn] of listeners.splice(0)) stdin.off(event, fn)
      // A paused, unreferenced stdin no longer keeps the process alive once the server is done.
      stdin.pause()
      ;(stdin as { unref?: () => void }).unref?.()
      endStdin()
    },
  }
}
