// <agent_home>/.env: parsed with Node's own dotenv parser, written one key at a time (other lines,
// comments and order kept), atomically and with mode 0600 because it holds secrets.

import { existsSync, readFileSync, statSync } from 'node:fs'
import { parseEnv } from 'node:util'
import writeFileAtomic from 'write-file-atomic'

export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {}
  // Concatenated or NUL-polluted files are a known source of lost keys: sanitise before parsing.
  const text = readFileSync(path, 'utf8').replace(/\0/g, '')
  return { ...parseEnv(text) } as Record<string, string>
}

/** Size and modification time of the file ('' when absent): tells a changed file from the one read. */
export function envFileStamp(path: string): string {
  try {
    // No exception for a missing file (the usual case without a .env): building one cost more than the stat.
    const stat = statSync(path, { throwIfNoEntry: false })
    return stat ? `${stat.size}:${stat.mtimeMs}:${stat.ino}` : ''
  } catch {
    return ''
  }
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]*$/.test(value) ? value : JSON.stringify(value)
}

/** Sets (or with `undefined`, removes) one key, keeping every other line as it was. */
export async function writeEnvKey(path: string, name: string, value: string | undefined): Promise<void> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid environment variable name: ${name}`)
  const lines = existsSync(path) ? readFileSync(path, 'utf8').replace(/\0/g, '').split('\n') : []
  const pattern = new RegExp(`^\\s*(export\\s+)?${name}\\s*=`)
  const index = lines.findIndex((line) => pattern.test(line))
  if (value === undefined) {
    if (index !== -1) lines.splice(index, 1)
  } else if (index !== -1) {
    lines[index] = `${name}=${quote(value)}`
  } else {
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
    lines.push(`${name}=${quote(value)}`)
  }
  const text = lines.join('\n').replace(/\n*$/, '\n')
  await writeFileAtomic(path, text, { mode: 0o600 })
}
