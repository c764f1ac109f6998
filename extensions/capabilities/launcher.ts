// Opening URLs and files with the user's applications, through the `open` package (loaded on first
// use). A configured launcher command (`capabilities.opener.command` or AGENT_OPENER_COMMAND)
// replaces the desktop default: it is run as `<command> [args…] [--with <app>] <target>` and waited
// for, which is how tests record what would have opened without launching anything.

import { createRequire } from 'node:module'
import { dirname } from 'node:path'

export interface Launcher {
  /** Opens a URL or a path with the default application, or with `app`. */
  open(target: string, app?: string): Promise<void>
  /** Shows a file in its folder. */
  reveal(path: string): Promise<void>
}

type OpenFn = (target: string, options?: { app?: { name: string; arguments?: string[] }; wait?: boolean }) => Promise<unknown>

// Loaded on first use with Node's own require (`open` is an ES module; Node ≥ 20.19 requires it natively).
const requireNative = createRequire(import.meta.url)
async function openFn(): Promise<OpenFn> {
  return (requireNative('open') as { default: OpenFn }).default
}

/** Splits a command string on whitespace, honouring simple quotes ('…' and "…"). */
export function splitCommand(command: string): string[] {
  const parts: string[] = []
  for (const m of command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) parts.push(m[1] ?? m[2] ?? m[3]!)
  return parts
}

export function createLauncher(command: readonly string[] | undefined): Launcher {
  if (command && command.length > 0) {
    const [name, ...args] = command
    const run = async (target: string, extra: string[]) => {
      const open = await openFn()
      await open(target, { app: { name: name!, arguments: [...args, ...extra] }, wait: true })
    }
    return {
      open: (target, app) => run(target, app === undefined ? [] : ['--with', app]),
      reveal: (path) => run(path, ['--reveal']),
    }
  }
  return {
    async open(target, app) {
      const open = await openFn()
      await open(target, app === undefined ? {} : { app: { name: app } })
    },
    async reveal(path) {
      const { spawn } = await import('node:child_process')
      if (process.platform === 'darwin' || process.platform === 'win32') {
        const [cmd, args] = process.platform === 'darwin' ? ['open', ['-R', path]] : ['explorer', [`/select,${path}`]]
        await new Promise<void>((resolve, reject) => {
          const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true })
          child.once('error', reject)
          child.once('spawn', () => {
            child.unref()
            resolve()
          })
        })
        return
      }
      // Linux desktops have no portable "select this file": open its folder.
      const open = await openFn()
      await open(dirname(path))
    },
  }
}
