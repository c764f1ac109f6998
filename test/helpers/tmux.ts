// Drives the real `agent` bin in a real terminal: tmux on a private socket, `send-keys`,
// `capture-pane`, bounded polling. The environment is hermetic (written to a launcher script, so
// nothing of the test runner's environment leaks in beyond hermeticEnv's).

import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hermeticEnv } from '../../sdk/testing/index.ts'
import { AGENT_BIN } from './agent-process.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

export interface TerminalOptions {
  home: string
  env?: Record<string, string | undefined>
  args?: string[]
  cwd?: string
  columns?: number
  rows?: number
}

export interface Terminal {
  readonly name: string
  /** What the agent wrote on stderr (kept out of the screen). */
  stderr(): string
  /** Keys as tmux names them (`Enter`, `C-c`, `Tab`) or literal text with `literal`. */
  send(...keys: string[]): void
  type(text: string): void
  /** The screen as text; with `escapes`, with its colours and attributes as escape codes (`capture-pane -e`). */
  capture(escapes?: boolean): string
  /** Polls the screen until `test` passes (bounded); returns the screen. */
  waitFor(test: RegExp | ((screen: string) => boolean), timeoutMs?: number, what?: string): Promise<string>
  /** Whether the agent process has exited (the pane shows the launcher's end marker). */
  exited(): boolean
  resize(columns: number, rows: number): void
  close(): void
}

export function openTerminal(options: TerminalOptions): Terminal {
  const name = `t${Math.random().toString(36).slice(2, 8)}`
  // A server per terminal: closing one never races with opening the next.
  const socket = `agent-test-${process.pid}-${name}`
  const env = hermeticEnv({ TERM: 'xterm-256color', ...options.env }, options.home)
  const launcher = join(options.home, `launch-${name}.sh`)
  const stderrLog = join(options.home, `stderr-${name}.log`)
  const exports = Object.entries(env)
    .filter(([k, v]) => v !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
    .map(([k, v]) => `export ${k}=${quote(String(v))}`)
  writeFileSync(
    launcher,
    ['#!/bin/sh', ...exports, `cd ${quote(options.cwd ?? options.home)}`, `${quote(process.execPath)} ${quote(AGENT_BIN)} ${(options.args ?? []).map(quote).join(' ')} 2>>${quote(stderrLog)}`, 'echo "[agent exited $?]"', "trap '' INT", 'sleep 600', ''].join('\n'),
    { mode: 0o700 },
  )
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', name, '-x', String(options.columns ?? 100), '-y', String(options.rows ?? 30), `sh ${quote(launcher)}`)
  // Keep the pane at the requested size even without a client attached.
  try {
    tmux('set-option', '-t', name, 'window-size', 'manual')
  } catch {
    // older tmux: sizes follow -x/-y anyway
  }
  const capture = (escapes = false) => tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', name)
  return {
    name,
    stderr: () => {
      try {
        return readFileSync(stderrLog, 'utf8')
      } catch {
        return ''
      }
    },
    send: (...keys) => void tmux('send-keys', '-t', name, ...keys),
    type: (text) => void tmux('send-keys', '-t', name, '-l', text),
    capture,
    async waitFor(test, timeoutMs = 15_000, what) {
      const deadline = Date.now() + timeoutMs
      let screen = ''
      while (Date.now() < deadline) {
        screen = capture()
        if (typeof test === 'function' ? test(screen) : test.test(screen)) return screen
        await sleep(100)
      }
      let stderr = ''
      try {
        stderr = readFileSync(stderrLog, 'utf8')
      } catch {
        // nothing written
      }
      throw new Error(`terminal never showed ${what ?? String(test)} within ${timeoutMs} ms; screen:\n${screen}${stderr ? `\nstderr:\n${stderr}` : ''}`)
    },
    exited: () => /\[agent exited \d+\]/.test(capture()),
    resize: (columns, rows) => void tmux('resize-window', '-t', name, '-x', String(columns), '-y', String(rows)),
    close() {
      try {
        tmux('kill-server')
      } catch {
        // already gone
      }
    },
  }
}
