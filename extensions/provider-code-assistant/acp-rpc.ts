// JSON-RPC 2.0 over a child process's stdio, one JSON object per line (the ACP transport). Tracks
// pending requests, answers the agent's own requests through a handler, keeps the last stderr lines
// to explain a failure, and fails every pending request when the process errors or exits. A line is
// held up to `maxLineBytes` (the answer cap): a longer one fails the peer and ends the process.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { AnswerTooLargeError, MAX_ANSWER_BYTES } from 'agent/sdk'
import { LineSplitter } from './acp-lines.ts'

export class AcpProcessError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message)
    this.name = 'AcpProcessError'
  }
}

type Handler = (method: string, params: any) => Promise<unknown> | unknown

/** What one stderr line keeps: only its last line's start is ever shown. */
const STDERR_LINE_BYTES = 4096

export class AcpPeer {
  private readonly child: ChildProcessWithoutNullStreams
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>()
  private readonly stderr: string[] = []
  private nextId = 1
  private failure: Error | undefined
  private closing = false
  onNotification: (method: string, params: any) => void = () => {}
  onRequest: Handler = () => {
    throw Object.assign(new Error('method not supported'), { rpcCode: -32601 })
  }

  constructor(command: string, args: string[], options: { cwd?: string; maxLineBytes?: number }) {
    this.child = spawn(command, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true })
    this.child.on('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'ENOENT' ? `command not found: ${command}` : error.message
      this.fail(new AcpProcessError(`cannot start the ACP process: ${reason}`, error.code))
    })
    this.child.on('exit', (code, signal) => {
      const last = this.stderr.filter((l) => l.trim()).at(-1)
      this.fail(new AcpProcessError(`the ACP process exited (${signal ?? `code ${code}`})${last ? `: ${last.trim().slice(0, 200)}` : ''}`))
    })
    this.child.stdin.on('error', () => {}) // a closed pipe is reported by 'exit'
    const keep = (line: string) => {
      this.stderr.push(line)
      if (this.stderr.length > 20) this.stderr.shift()
    }
    const stderr = new LineSplitter(STDERR_LINE_BYTES, keep, (head) => keep(head.toString('utf8')))
    this.child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk)).on('end', () => stderr.end())
    const limit = options.maxLineBytes ?? MAX_ANSWER_BYTES
    const stdout = new LineSplitter(limit, (line) => this.receive(line), () => this.abandon(new AnswerTooLargeError(limit, 'JSON-RPC line')))
    // Once failed, what the process still writes until it is gone is read and dropped, never kept.
    this.child.stdout.on('data', (chunk: Buffer) => {
      if (!this.failure) stdout.push(chunk)
    })
    this.child.stdout.on('end', () => stdout.end())
  }

  /** Fails every pending request with `error` and ends the process. */
  abandon(error: Error): void {
    this.fail(error)
    this.close()
  }

  private receive(line: string): void {
    if (this.failure) return // the rest of a chunk read after the peer failed
    let message: any
    try {
      message = JSON.parse(line)
    } catch {
      return // agents may print logs on stdout; only JSON lines are protocol
    }
    if (message?.id !== undefined && (message.result !== undefined || message.error !== undefined) && message.method === undefined) {
      const waiter = this.pending.get(message.id)
      if (!waiter) return
      this.pending.delete(message.id)
      if (message.error) waiter.reject(new AcpProcessError(`ACP error ${message.error.code ?? ''}: ${message.error.message ?? 'unknown'}`.replace(/\s+/g, ' ')))
      else waiter.resolve(message.result)
      return
    }
    if (typeof message?.method !== 'string') return
    if (message.id === undefined) {
      // A handler that refuses (an answer past its cap) ends the exchange instead of throwing out of the stream.
      try {
        this.onNotification(message.method, message.params)
      } catch (error) {
        this.abandon(error instanceof Error ? error : new Error(String(error)))
      }
      return
    }
    Promise.resolve()
      .then(() => this.onRequest(message.method, message.params))
      .then(
        (result) => this.write({ jsonrpc: '2.0', id: message.id, result: result ?? null }),
        (error) => this.write({ jsonrpc: '2.0', id: message.id, error: { code: error?.rpcCode ?? -32603, message: String(error?.message ?? error) } }),
      )
  }

  private write(message: unknown): void {
    if (!this.child.stdin.destroyed) this.child.stdin.write(`${JSON.stringify(message)}\n`)
  }

  private fail(error: Error): void {
    this.failure ??= error
    for (const waiter of this.pending.values()) waiter.reject(this.failure)
    this.pending.clear()
  }

  request(method: string, params: unknown): Promise<any> {
    if (this.failure) return Promise.reject(this.failure)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.write({ jsonrpc: '2.0', id, method, params })
    })
  }

  notify(method: string, params: unknown): void {
    this.write({ jsonrpc: '2.0', method, params })
  }

  /** Ends the process (SIGTERM, then SIGKILL after a grace period); once, however often called. */
  close(): void {
    this.fail(new AcpProcessError('the ACP process was closed'))
    if (this.closing || this.child.exitCode !== null || this.child.signalCode !== null) return
    this.closing = true
    this.child.stdin.end()
    this.child.kill('SIGTERM')
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000)
    timer.unref()
    this.child.once('exit', () => clearTimeout(timer))
  }
}
