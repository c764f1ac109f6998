// Which process serves this AGENT_HOME's dashboard: written by the server when its listener is up
// (gateway or `agent dashboard`), read by `agent dashboard` to print a link to that server rather
// than start a second one.

import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { dashboardDir } from './sign-in.ts'

// Reading and forgetting never create the folder: a gateway stopping after its home was removed
// (a test's temporary home) must not bring it back.
const fileOf = (home: string) => join(home, 'dashboard', 'server.json')

export function recordServer(home: string, url: string): void {
  writeFileSync(join(dashboardDir(home), 'server.json'), JSON.stringify({ url, pid: process.pid }), { mode: 0o600 })
}

export function forgetServer(home: string): void {
  try {
    const current = JSON.parse(readFileSync(fileOf(home), 'utf8'))
    if (current?.pid === process.pid) rmSync(fileOf(home), { force: true })
  } catch {
    // nothing recorded
  }
}

/** The URL of a live dashboard of another process, checked by its health route. */
export async function runningServer(home: string): Promise<string | undefined> {
  let recorded: { url?: unknown; pid?: unknown }
  try {
    recorded = JSON.parse(readFileSync(fileOf(home), 'utf8'))
  } catch {
    return undefined
  }
  if (typeof recorded.url !== 'string' || typeof recorded.pid !== 'number' || recorded.pid === process.pid) return undefined
  try {
    process.kill(recorded.pid, 0)
    const answer = await fetch(`${recorded.url}/healthz`, { signal: AbortSignal.timeout(2000) })
    return answer.ok ? recorded.url : undefined
  } catch {
    return undefined
  }
}
