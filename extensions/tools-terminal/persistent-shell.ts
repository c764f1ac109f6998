// A long-lived shell child per session (local bash, or bash inside a container through `exec -i`).
// Each command is handed over as a quoted heredoc and `eval`ed in the shell itself, so `cd`, exported
// variables and functions survive to the next command; a per-command marker carries the exit status.
// Commands run one at a time; a timeout or an abort ends the shell (its state is lost, said so).

import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { noCutGuard, omittedNote, type CutGuardSource } from './output.ts'
import { killTree } from './run-process.ts'

export interface ShellResult {
  output: string
  exitCode: number | null
  timedOut: boolean
  interrupted: boolean
  /** The shell ended (exit, timeout, crash): the next command starts a fresh one. */
  shellEnded: boolean
}

export interface ShellSpawn {
  argv: string[]
  cwd?: string
  env: Record<string, string>
}

export class PersistentShell {
  private child: ChildProcess | undefined
  private chain: Promise<unknown> = Promise.resolve()
  private buffer = ''
  /** Characters of the running command's output dropped from the buffer's start (memory bound). */
  private dropped = 0
  private onData: (() => void) | undefined
  /** The running command's live output (the marker line is filtered by the receiver). */
  private onOutput: ((chunk: string) => void) | undefined
  private ended = false
  private readonly spawnSpec: ShellSpawn
  private readonly limit: number
  private readonly guard: CutGuardSource

  /**
   * `guard`: clears what is kept after a cut of the raw output of any part of a secret (output.ts);
   * `sandboxed`: whether `spec.argv` runs the shell inside the terminal sandbox (sandbox.ts), and
   * `placesKey` which places it made read-only (sandbox-places.ts).
   */
  constructor(spec: ShellSpawn, limit: number, guard: CutGuardSource = noCutGuard, readonly sandboxed = false, readonly placesKey = '') {
    this.spawnSpec = spec
    this.limit = limit
    this.guard = guard
  }

  get alive(): boolean {
    return this.child !== undefined && !this.ended
  }

  /** Runs commands strictly one after another. */
  run(command: string, timeoutMs: number, signal?: AbortSignal, onOutput?: (chunk: string) => void): Promise<ShellResult> {
    const next = this.chain.then(() => this.runNow(command, timeoutMs, signal, onOutput))
    this.chain = next.catch(() => undefined)
    return next
  }

  close(): void {
    if (this.child) killTree(this.child, 500)
    this.child = undefined
  }

  private start(): ChildProcess {
    const child = spawn(this.spawnSpec.argv[0]!, this.spawnSpec.argv.slice(1), {
      cwd: this.spawnSpec.cwd,
      env: this.spawnSpec.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.ended = false
    this.buffer = ''
    this.dropped = 0
    const take = (d: string) => {
      this.buffer += d
      this.onOutput?.(d)
      // Bound memory while a command is chatty: keep the tail (the marker arrives at the end).
      if (this.buffer.length > this.limit * 4) {
        this.dropped += this.buffer.length - this.limit * 2
        this.buffer = this.buffer.slice(this.buffer.length - this.limit * 2)
      }
      this.onData?.()
    }
    child.stdout!.setEncoding('utf8').on('data', take)
    child.stderr!.setEncoding('utf8').on('data', take)
    child.stdin!.on('error', () => undefined)
    const end = () => {
      this.ended = true
      this.onData?.()
    }
    child.on('exit', end)
    child.on('error', end)
    this.child = child
    return child
  }

  /** The command's output as kept: where its start was dropped, marked, and guarded (output.ts). */
  private cutStart(output: string): string {
    if (!this.dropped) return output
    return `${omittedNote(this.dropped)}\n${this.guard().afterCut(output)}`
  }

  private async runNow(command: string, timeoutMs: number, signal?: AbortSignal, onOutput?: (chunk: string) => void): Promise<ShellResult> {
    const child = this.alive ? this.child! : this.start()
    const nonce = randomBytes(8).toString('hex')
    const eof = `__AGENT_EOF_${nonce}`
    const marker = `__AGENT_DONE_${nonce}__`
    this.buffer = ''
    this.dropped = 0
    // The heredoc delimiter is quoted: nothing in the command is expanded before eval sees it.
    // stdin of the command is /dev/null, so it cannot swallow the next script.
    const script =
      `IFS= read -r -d '' __agent_cmd <<'${eof}'\n${command}\n${eof}\n` +
      `eval "$__agent_cmd" </dev/null 2>&1\n` +
      `printf '\\n${marker}%s\\n' "$?"\n`
    const pattern = new RegExp(`\\n?${marker}(\\d+)\\n`)
    return new Promise<ShellResult>((resolve) => {
      let timedOut = false
      let interrupted = false
      const finish = (result: ShellResult) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        this.onData = undefined
        this.onOutput = undefined
        resolve(result)
      }
      const endShell = () => {
        killTree(child, 500)
        this.ended = true
      }
      const timer = setTimeout(() => {
        timedOut = true
        endShell()
      }, timeoutMs)
      const onAbort = () => {
        interrupted = true
        endShell()
      }
      this.onData = () => {
        const match = pattern.exec(this.buffer)
        if (match) {
          const output = this.cutStart(this.buffer.slice(0, match.index))
          this.buffer = this.buffer.slice(match.index + match[0].length)
          finish({ output, exitCode: Number(match[1]), timedOut, interrupted, shellEnded: false })
        } else if (this.ended) {
          const output = this.cutStart(this.buffer)
          this.buffer = ''
          finish({ output, exitCode: child.exitCode, timedOut, interrupted, shellEnded: true })
        }
      }
      this.onOutput = onOutput
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      child.stdin!.write(script)
    })
  }
}
