// stdout for protocol commands (`agent mcp serve`, `agent acp`): the peer parses every stdout line as
// JSON-RPC, so one stray `console.log` from an extension breaks the session. The CLI holds stdout
// while extensions load and set up (it does not know the command yet); then it either releases
// what was held (an ordinary command) or reserves stdout for the protocol: the held text and every
// later write by anyone else go to `stray` (the log, on stderr), and only the writer handed to the
// command reaches the real stdout.

import { Writable } from 'node:stream'
import type { CliCommand } from '../sdk/types.ts'

type Write = NodeJS.WriteStream['write']

export interface StdoutHold {
  /** Gives stdout back; what was held is written now, in order. */
  release(): void
  /** Keeps stdout from everyone but the returned stream; held and later writes go to `stray`. */
  reserve(stray: (text: string, stack: string | undefined) => void): NodeJS.WritableStream
  /** Gives stdout back to every writer after reserve (at exit). */
  restore(): void
}

const textOf = (chunk: unknown, encoding: unknown): string =>
  typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')

/** The callback argument of a write(chunk, [encoding], [callback]) call. */
const callbackOf = (encoding: unknown, callback: unknown) => (typeof encoding === 'function' ? encoding : typeof callback === 'function' ? callback : undefined) as
  | ((error?: Error | null) => void)
  | undefined

/** Deep enough to reach past console.log's own frames to the caller's. */
function writerStack(): string | undefined {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 30
  try {
    return new Error().stack
  } finally {
    Error.stackTraceLimit = limit
  }
}

export function holdStdout(stdout: NodeJS.WriteStream = process.stdout): StdoutHold {
  const ownWrite = Object.prototype.hasOwnProperty.call(stdout, 'write') ? stdout.write : undefined
  const realWrite = stdout.write.bind(stdout) as Write
  // With the stack of each write, so the log can name the extension that wrote it.
  const held: Array<[string, string | undefined]> = []
  let active = true
  const put = (route: (text: string, stack: string | undefined) => void): Write =>
    ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      route(textOf(chunk, encoding), writerStack())
      const done = callbackOf(encoding, callback)
      if (done) queueMicrotask(() => done(null))
      return true
    }) as Write
  stdout.write = put((text, stack) => held.push([text, stack]))

  const restore = () => {
    if (!active) return
    active = false
    if (ownWrite) stdout.write = ownWrite
    else delete (stdout as { write?: Write }).write
  }

  return {
    release() {
      restore()
      for (const [text] of held.splice(0)) stdout.write(text)
    },
    reserve(stray) {
      const toStray = (text: string, stack: string | undefined) => {
        const trimmed = text.replace(/\r?\n$/, '')
        if (trimmed) stray(trimmed, stack)
      }
      for (const [text, stack] of held.splice(0)) toStray(text, stack)
      stdout.write = put(toStray)
      return new Writable({
        write(chunk: Buffer, _encoding, callback) {
          realWrite(chunk, (error?: Error | null) => callback(error ?? null))
        },
      })
    },
    restore,
  }
}

/** The command (or subcommand) the arguments name, to read its `stdio` before yargs runs it. */
export function namedCommand(args: readonly string[], commands: ReadonlyArray<{ name: string; aliases?: string[]; cli?: CliCommand }>): CliCommand | undefined {
  const words = args.filter((a) => !a.startsWith('-'))
  const command = commands.find((c) => c.cli && (c.name === words[0] || c.aliases?.includes(words[0] ?? '')))?.cli
  const subcommands = command?.subcommands ?? {}
  const sub = Object.entries(subcommands).find(([name, s]) => name === words[1] || s.aliases?.includes(words[1] ?? ''))?.[1]
  return sub ?? command
}
