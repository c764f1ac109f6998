// The terminal sandbox: local commands run under bubblewrap (bwrap), the unprivileged sandbox Flatpak
// is built on, with the protected places read-only (sandbox-places.ts) and a /proc of their own, so a
// command the approvals judge did not recognise as dangerous still cannot change the agent, the
// user's login files or the system, nor reach the host through /proc/<pid>/root. Everything else is
// the machine as it is: the network, the working folder, temp folders and caches stay writable.
//
// bubblewrap rather than our own namespaces: it is the maintained, audited tool for exactly this
// (mount namespace, pid namespace, no setuid needed), and it is one Debian/Fedora package.

import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'
import type { Settings } from 'agent/sdk'
import { sandboxPlaces } from './sandbox-places.ts'

export type SandboxMode = 'auto' | 'bwrap' | 'off'
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'bwrap', 'off']

/** `AGENT_TERMINAL_SANDBOX` wins over `terminal.sandbox`; an unknown value is an error, never "off". */
export function sandboxModeOf(configured: SandboxMode, settings: Settings): SandboxMode {
  const fromEnv = settings.env('AGENT_TERMINAL_SANDBOX')?.trim()
  if (fromEnv === undefined || fromEnv === '') return configured
  if ((SANDBOX_MODES as readonly string[]).includes(fromEnv)) return fromEnv as SandboxMode
  throw new Error(`AGENT_TERMINAL_SANDBOX must be one of ${SANDBOX_MODES.join(', ')} (got ${JSON.stringify(fromEnv)})`)
}

export interface SandboxStatus {
  mode: SandboxMode
  /** Whether commands run sandboxed. */
  active: boolean
  /** Why not, when the mode asked for it (bwrap missing or not permitted here). */
  reason?: string
}

/**
 * The namespaces and limits of every sandbox (the probe tries exactly these). No capabilities: run as
 * root, bwrap would otherwise leave the command CAP_SYS_ADMIN, and `umount` would take a read-only
 * place's mount away.
 */
const BASE = ['--dev-bind', '/', '/', '--unshare-pid', '--proc', '/proc', '--die-with-parent', '--cap-drop', 'ALL']

/** Arguments before the command: the machine as it is, protected places read-only, a /proc of its own. */
export function bwrapArgs(roots: { agentHome: string; home: string }, cwd: string): string[] {
  const { readOnly, pinned } = sandboxPlaces(roots, cwd)
  const ro = new Set(readOnly)
  const mounts = [...pinned, ...readOnly].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b))
  const args = [...BASE]
  for (const path of mounts) args.push(ro.has(path) ? '--ro-bind' : '--dev-bind', path, path)
  return args
}

/** One terminal's sandbox: whether bwrap works here is found out once, on the first command. */
export class TerminalSandbox {
  private probed: Promise<string | undefined> | undefined
  private binary: string | undefined

  constructor(
    private readonly mode: () => SandboxMode,
    private readonly settings: Settings,
  ) {}

  async status(): Promise<SandboxStatus> {
    const mode = this.mode()
    if (mode === 'off') return { mode, active: false }
    const problem = await this.probe()
    return problem ? { mode, active: false, reason: problem } : { mode, active: true }
  }

  /**
   * `argv` as it must run: inside bwrap when the sandbox is active, unchanged when it is off (or
   * `auto` on a machine without bwrap). Throws when the mode is `bwrap` and it cannot run: fail closed.
   */
  async wrap(argv: readonly string[], cwd: string): Promise<{ argv: string[]; sandboxed: boolean }> {
    const status = await this.status()
    if (!status.active) {
      if (status.mode === 'bwrap') throw new Error(`terminal.sandbox is "bwrap" but the sandbox cannot run here (${status.reason}); the command was not run`)
      return { argv: [...argv], sandboxed: false }
    }
    return { argv: [this.binary!, ...bwrapArgs({ agentHome: this.settings.home, home: homedir() }, cwd), '--', ...argv], sandboxed: true }
  }

  private probe(): Promise<string | undefined> {
    this.probed ??= (async () => {
      const found = (this.settings.env('PATH') ?? '').split(delimiter).map((dir) => dir && join(dir, 'bwrap')).find((path) => path && existsSync(path))
      if (!found) return 'bubblewrap (bwrap) is not installed'
      // User namespaces may be off (some containers, hardened kernels): try the same options once.
      const failure = await new Promise<string | undefined>((resolve) =>
        execFile(found, [...BASE, '--', 'true'], { timeout: 10_000 }, (error, _out, stderr) =>
          resolve(error ? `bwrap cannot create its namespaces here: ${(stderr || error.message).trim().split('\n')[0]}` : undefined),
        ),
      )
      if (!failure) this.binary = found
      return failure
    })()
    return this.probed
  }
}
