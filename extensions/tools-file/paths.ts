// Paths of the file tools: relative to the session's working directory, `~` expanded, and a short
// list of places the agent must not write (credentials, system folders) or read (its own .env).

import { homedir } from 'node:os'
import { isAbsolute, join, resolve, sep } from 'node:path'

export function resolvePath(cwd: string, raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new Error('"path" must be a non-empty string')
  if (raw.includes('\0')) throw new Error('"path" must not contain NUL characters')
  let path = raw.trim()
  if (path === '~' || path.startsWith('~/')) path = join(homedir(), path.slice(1))
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path)
}

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep)

function protectedDirs(): string[] {
  const home = homedir()
  return [join(home, '.ssh'), join(home, '.gnupg'), join(home, '.aws'), join(home, '.kube'), '/etc', '/boot', '/usr', '/bin', '/sbin', '/lib', '/proc', '/sys', '/dev']
}

/** Throws when the agent may not write `path`. */
export function assertWritable(path: string, agentHome: string): void {
  if (path === join(agentHome, '.env')) throw new Error(`${path} holds the agent's secrets; change it with \`agent config set\``)
  for (const dir of protectedDirs()) if (within(path, dir)) throw new Error(`writing under ${dir} is not allowed for the file tools`)
}

/** Throws when the agent may not read `path` (its own secrets file). */
export function assertReadable(path: string, agentHome: string): void {
  if (path === join(agentHome, '.env')) throw new Error(`${path} holds the agent's secrets and is not readable by tools`)
}

/** `path` relative to the working directory when it is inside it, for short output lines. */
export function display(path: string, cwd: string): string {
  return within(path, cwd) && path !== cwd ? path.slice(cwd.length + (cwd.endsWith(sep) ? 0 : 1)) : path
}
