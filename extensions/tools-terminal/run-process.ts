// Runs one command line to completion as a child process in its own process group: stdout and
// stderr merged in arrival order, a timeout and an abort signal that end the whole group (TERM, then
// KILL), and output bounded in memory.

import { spawn, type ChildProcess } from 'node:child_process'
import { OutputBuffer, type CutGuardSource } from './output.ts'

export interface RunOptions {
  cwd?: string
  env: Record<string, string>
  timeoutMs: number
  signal?: AbortSignal
  /** Characters kept in memory (head and tail). */
  limit: number
  /** Clears both sides of a memory-bound cut of any part of a secret (output.ts). */
  guard?: CutGuardSource
  stdin?: string
  /** Each chunk of output as it arrives (live progress). */
  onOutput?: (chunk: string) => void
}

export interface RunOutcome {
  output: string
  exitCode: number | null
  timedOut: boolean
  interrupted: boolean
  /** Failure to start at all (binary missing, bad cwd). */
  spawnError?: string
}

/** Ends a detached child and everything it started: TERM to the group, KILL after a grace period. */
export function killTree(child: ChildProcess, graceMs = 2000): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  const send = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      try {
        child.kill(signal)
      } catch {
        // already gone
      }
    }
  }
  send('SIGTERM')
  const timer = setTimeout(() => send('SIGKILL'), graceMs)
  timer.unref()
  // Not on the leader's 'exit': the rest of the group may live on (a process that ignores TERM, or
  // the sandbox's init while bubblewrap sets up); 'close' means nothing holds the output any more.
  child.once('close', () => clearTimeout(timer))
}

export function runProcess(argv: readonly string[], options: RunOptions): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const buffer = new OutputBuffer(options.limit, options.guard)
    let timedOut = false
    let interrupted = false
    let settled = false
    let child: ChildProcess
    try {
      child = spawn(argv[0]!, argv.slice(1), {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      })
    } catch (error) {
      resolve({ output: '', exitCode: null, timedOut: false, interrupted: false, spawnError: (error as Error).message })
      return
    }
    const finish = (outcome: RunOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      resolve(outcome)
    }
    const timer = setTimeout(() => {
      timedOut = true
      killTree(child)
    }, options.timeoutMs)
    const onAbort = () => {
      interrupted = true
      killTree(child)
    }
    if (options.signal?.aborted) onAbort()
    else options.signal?.addEventListener('abort', onAbort, { once: true })
    const take = (d: string) => {
      buffer.push(d)
      options.onOutput?.(d)
    }
    child.stdout!.setEncoding('utf8').on('data', take)
    child.stderr!.setEncoding('utf8').on('data', take)
    if (options.stdin !== undefined) child.stdin!.end(options.stdin)
    child.on('error', (error) => finish({ output: buffer.text(), exitCode: null, timedOut, interrupted, spawnError: error.message }))
    // 'close' waits for the pipes, so no output is lost. A grandchild left running with the pipes open
    // (`server &`) would hold them forever: shortly after the shell itself exits, stop waiting for it.
    child.on('exit', (code, signal) => {
      const grace = setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
        finish({ output: buffer.text(), exitCode: code ?? (signal ? 128 + (signalNumber(signal) ?? 0) : null), timedOut, interrupted })
      }, 500)
      grace.unref()
    })
    child.on('close', (code, signal) => finish({ output: buffer.text(), exitCode: code ?? (signal ? 128 + (signalNumber(signal) ?? 0) : null), timedOut, interrupted }))
  })
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  const table: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }
  return table[signal]
}
