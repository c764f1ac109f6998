// Runs the real `agent` bin in a child process with a hermetic environment: one-shot commands
// (runAgent, jsonOf for their `--json` output) and long-running ones (startAgent, e.g. `gateway run`)
// with bounded waits.

import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hermeticEnv } from '../../sdk/testing/index.ts'
import { track } from './running.ts'

export const AGENT_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'kernel', 'bin', 'agent.mjs')

export interface RunOptions {
  home: string
  env?: Record<string, string | undefined>
  input?: string
  cwd?: string
  /** AGENT_LOG_LEVEL for the child (wins over `env`); unset, the agent's own default (warn) applies. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error'
  /** runAgent: kill and reject after this long (default 60 s). */
  timeoutMs?: number
  /** Another copy of the agent's bin (a benchmark editing a copy of the sources); default this one. */
  bin?: string
}

function childEnv(options: RunOptions): NodeJS.ProcessEnv {
  return hermeticEnv(options.logLevel ? { ...options.env, AGENT_LOG_LEVEL: options.logLevel } : options.env, options.home)
}

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export function runAgent(args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENT_BIN, ...args], { env: childEnv(options), cwd: options.cwd ?? options.home, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`agent ${args.join(' ')} did not finish within ${options.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
    child.stdin.end(options.input ?? '')
  })
}

/** Parses the single JSON document a `--json` command prints (the error names the run's output). */
export function jsonOf(run: RunResult): any {
  try {
    return JSON.parse(run.stdout)
  } catch {
    throw new Error(`not one JSON document (exit ${run.code}):\nstdout: ${run.stdout}\nstderr: ${run.stderr}`)
  }
}

export interface RunningAgent {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves with the first match of `pattern` in stderr+stdout; rejects on exit or after `timeoutMs` (default 30 s). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** Sends `signal` (default SIGINT; SIGKILL after 10 s); resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Starts a long-running `agent …` (e.g. `gateway run`); stop it in `t.after`. */
export function startAgent(args: string[], options: RunOptions): RunningAgent {
  const child = spawn(process.execPath, [options.bin ?? AGENT_BIN, ...args], { env: childEnv(options), cwd: options.cwd ?? options.home, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  const waiters = new Set<() => void>()
  const notify = () => waiters.forEach((w) => w())
  child.stdout!.on('data', (d) => ((out += d), notify()))
  child.stderr!.on('data', (d) => ((err += d), notify()))
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => (notify(), resolve(code))))
  const agent: RunningAgent = {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = (err + out).match(pattern)
          if (match) return done(() => resolve(match))
          if (child.exitCode !== null) done(() => reject(new Error(`agent exited (${child.exitCode}) before ${pattern}\nstderr: ${err}\nstdout: ${out}`)))
        }
        const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${pattern}\nstderr: ${err}\nstdout: ${out}`))), timeoutMs)
        const done = (fn: () => void) => {
          clearTimeout(timer)
          waiters.delete(check)
          fn()
        }
        waiters.add(check)
        check()
      })
    },
    async stop(signal = 'SIGINT') {
      // `gateway run` lives in a respawned child holding our pipes (kernel/bin/agent.mjs); one stuck
      // past the grace period would hold `close` forever, so the tree noted now is killed, then the
      // pipes let go: a stop never hangs a test file.
      const tree = descendants(child.pid!)
      if (child.exitCode === null) child.kill(signal)
      const force = setTimeout(() => [child.pid!, ...tree].forEach(killQuietly), 10_000)
      const release = setTimeout(() => (child.stdout!.destroy(), child.stderr!.destroy()), 15_000)
      const code = await exited
      clearTimeout(force)
      clearTimeout(release)
      return code
    },
  }
  // Removing its home (temp.ts) stops it first.
  void exited.then(track(agent, [options.home, ...(options.cwd ? [options.cwd] : [])]))
  return agent
}

/** Every process below `pid` (Linux /proc; elsewhere none). */
function descendants(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    return children.flatMap((child) => [child, ...descendants(child)])
  } catch {
    return []
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
