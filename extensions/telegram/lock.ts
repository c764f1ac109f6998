// One poller per bot token on this machine's agent home: Telegram hands each update to one getUpdates
// caller, so two gateways sharing a bot would each see half the messages (and fight with 409s). The
// lock is a file named by a hash of the token (never the token) holding the owner's pid; a lock whose
// process is gone is taken over.

import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, shortHash } from 'agent/sdk'

/** Lock files this process holds (a second adapter in one process is refused too). */
const held = new Set<string>()

export interface TokenLock {
  readonly path: string
  release(): void
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function ownerOf(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Takes the lock of `token` under `<home>/locks`, or throws a ConfigError naming the process holding it. */
export function lockToken(home: string, token: string): TokenLock {
  const dir = join(home, 'locks')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const path = join(dir, `telegram-${shortHash(token, 16)}.lock`)
  if (held.has(path)) throw new ConfigError('this Telegram bot is already polled by another adapter in this process')
  const lock = (): TokenLock => {
    held.add(path)
    return {
      path,
      release: () => {
        held.delete(path)
        if (ownerOf(path) === process.pid) rmSync(path, { force: true })
      },
    }
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeSync(fd, `${process.pid}\n`)
      closeSync(fd)
      return lock()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = ownerOf(path)
    // Ours, from an adapter of this process that stopped without releasing it.
    if (owner === process.pid) return lock()
    if (owner !== undefined && alive(owner)) {
      throw new ConfigError(`another agent gateway (pid ${owner}) already runs this Telegram bot from this agent home: stop it (agent gateway stop), or give this one its own bot from BotFather`)
    }
    // Stale (its process is gone) or half-written: remove and try again.
    rmSync(path, { force: true })
  }
  throw new ConfigError(`cannot take the Telegram bot lock ${path}`)
}
