// One-time sign-in links. `agent dashboard` mints a token and prints the link; the server that
// answers it (this process or a running gateway) finds the token's hash in a file under
// AGENT_HOME, removes it and hands the browser a session cookie. Only hashes are stored, each link
// works once and for a few minutes.

import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { safeEqual } from 'agent/sdk'

const LINK_TTL_MS = 10 * 60_000
const MAX_PENDING = 20

interface PendingLink {
  hash: string
  expiresAt: number
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

export function dashboardDir(home: string): string {
  const dir = join(home, 'dashboard')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

function linksFile(home: string): string {
  return join(dashboardDir(home), 'sign-in-links.json')
}

function readLinks(home: string, now: number): PendingLink[] {
  try {
    const parsed = JSON.parse(readFileSync(linksFile(home), 'utf8'))
    return Array.isArray(parsed) ? parsed.filter((l) => typeof l?.hash === 'string' && typeof l?.expiresAt === 'number' && l.expiresAt > now) : []
  } catch {
    return []
  }
}

function writeLinks(home: string, links: PendingLink[]): void {
  const file = linksFile(home)
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, JSON.stringify(links), { mode: 0o600 })
  renameSync(temp, file)
}

/** A new one-time token (what goes in the printed link). */
export function mintSignInToken(home: string, now = Date.now()): string {
  const token = randomBytes(24).toString('base64url')
  const links = readLinks(home, now).slice(-(MAX_PENDING - 1))
  links.push({ hash: hashOf(token), expiresAt: now + LINK_TTL_MS })
  writeLinks(home, links)
  return token
}

/** True once for a token that was minted and has not expired; the token is used up. */
export function redeemSignInToken(home: string, token: string, now = Date.now()): boolean {
  if (!/^[A-Za-z0-9_-]{20,64}$/.test(token)) return false
  const links = readLinks(home, now)
  const hash = hashOf(token)
  const index = links.findIndex((l) => safeEqual(l.hash, hash))
  if (index < 0) return false
  links.splice(index, 1)
  writeLinks(home, links)
  return true
}
