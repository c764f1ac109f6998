// The terminal sandbox: local commands run under bubblewrap (bwrap), the unprivileged sandbox Flatpak
// is built on, with the protected places read-only (sandbox-places.ts) and a /proc of their own, so a
// command the approvals judge did not recognise as dangerous still cannot change the agent, the
// user's login files or the system, nor reach the host through /proc/<pid>/root. Everything else is
// the machine as it is: the network, the working folder, temp folders and caches stay writable.
//
// bubblewrap rather than our own namespaces: it is the maintained, audited tool for exactly this
// (mount namespace, pid namespace, no setuid needed), and it is one Debian/Fedora package.

import { execFile } from 'node:child_process'
import { homedir } from 'node:os'
import type { Settings, TerminalSandboxMode } from 'agent/sdk'
import { pathFolders } from './sandbox-extra.ts'
import { byDepth, placesKey, sandboxPlaces, type SandboxPlaces, type SandboxScope } from './sandbox-places.ts'
import { trustedProgram, type Sentinels } from './sandbox-watched.ts'

export interface SandboxStatus {
  mode: TerminalSandboxMode
  /** Whether commands run sandboxed. */
  active: boolean
  /** Why not, when the mode asked for it (bwrap missing or not permitted here). */
  reason?: string
}

/**
 * The namespaces and limits of every sandbox (the probe tries exactly these). No capabilities: run as
 * root, bwrap would otherwise leave the command CAP_SYS_ADMIN, and `umount` would take a read-only
 * place's mount away. /proc/sys and /sys read-only: without capabilities bwrap leaves /proc/sys as
 * the kernel has it, and root could set `kernel.core_pattern` to a program the kernel runs as root.
 * A /dev of its own, given only the host devices sandbox-extra.ts keeps: not disks nor memory.
 */
const BASE = [
  '--dev-bind', '/', '/', '--dev', '/dev', '--unshare-pid', '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys',
  '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger', '--ro-bind', '/sys', '/sys', '--die-with-parent', '--cap-drop', 'ALL',
]

/** Arguments before the command: the machine as it is, protected places and the root's entries read-only, a /proc and /dev of its own. */
export function bwrapArgs(places: SandboxPlaces): string[] {
  const mounts: Array<[string, string[]]> = [
    ...places.pinned.map((p): [string, string[]] => [p, ['--dev-bind', p, p]]),
    ...places.readOnly.map((p): [string, string[]] => [p, ['--ro-bind', p, p]]),
    ...places.hidden.map((p): [string, string[]] => [p, ['--ro-bind', '/dev/null', p]]),
    ...places.emptied.map((p): [string, string[]] => [p, ['--tmpfs', p]]),
  ]
  // Parents first: a mount on a folder would hide the ones already made inside it.
  mounts.sort((a, b) => byDepth(a[0], b[0]))
  // The root last, read-only: its folders are mounts of their own (pinned), so only its entries
  // (the /bin link, a new top-level folder) are fixed; with capabilities gone even root cannot undo it.
  const devices = places.devices.flatMap((p) => ['--dev-bind-try', p, p])
  return [...BASE, ...devices, ...mounts.flatMap(([, args]) => args), '--remount-ro', '/']
}

export interface Wrapped {
  argv: string[]
  sandboxed: boolean
  /** Which places were made read-only, and which files they were (placesKey): '' unsandboxed. */
  key: string
  /** What no mount covers, to watch while it runs (sandbox-sentry.ts); sandboxed only. */
  sentinels?: Sentinels
}

/** One terminal's sandbox: whether bwrap works here is found out once, on the first command. */
export class TerminalSandbox {
  private probed: Promise<string | undefined> | undefined
  private binary: string | undefined

  constructor(
    private readonly mode: () => TerminalSandboxMode,
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
  async wrap(argv: readonly string[], scope: Omit<SandboxScope, 'agentHome' | 'home' | 'uid'>): Promise<Wrapped> {
    const status = await this.status()
    if (!status.active) {
      if (status.mode === 'bwrap') throw new Error(`terminal.sandbox is "bwrap" but the sandbox cannot run here (${status.reason}); the command was not run`)
      return { argv: [...argv], sandboxed: false, key: '' }
    }
    const places = sandboxPlaces({ ...scope, agentHome: this.settings.home, home: homedir(), uid: process.getuid?.() })
    return { argv: [this.binary!, ...bwrapArgs(places), '--', ...argv], sandboxed: true, key: placesKey(places), sentinels: places.sentinels }
  }

  private probe(): Promise<string | undefined> {
    this.probed ??= (async () => {
      // Not from a folder a sandboxed command can write (a temp or the working folder): a `bwrap`
      // planted there would be what the next start runs.
      // Its real file too: a link from a read-only PATH folder into a writable one would not do.
      const found = trustedProgram('bwrap', pathFolders(this.settings.env('PATH'), [process.cwd()]), [])
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
