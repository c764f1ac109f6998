// DM pairing: short one-time codes (8 characters, no look-alike letters) stored salted and hashed,
// expiring after an hour, at most 3 pending per platform, one request per user per 10 minutes. A
// wrong code counts as a failed guess against every pending pairing it could have been meant for; 5
// within 15 minutes lock that platform and user's pairing (the right code is refused too) until the
// 15 minutes have passed. Codes are never logged. This file holds what both stores share (the rules
// and their decisions); pairing-sqlite.ts and pairing-pg.ts keep the rows, pairing-store.ts picks one.

import { createHash, randomBytes, randomInt } from 'node:crypto'
import { AgentError, safeEqual, type ApprovedPairing, type MessageSource, type PendingPairing } from 'agent/sdk'

export const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
export const CODE_LENGTH = 8

export interface PairingLimits {
  codeTtlMs: number
  maxPendingPerPlatform: number
  requestIntervalMs: number
  maxFailures: number
  lockoutMs: number
}

export const DEFAULT_LIMITS: PairingLimits = {
  codeTtlMs: 60 * 60_000,
  maxPendingPerPlatform: 3,
  requestIntervalMs: 10 * 60_000,
  maxFailures: 5,
  lockoutMs: 15 * 60_000,
}

/** The pairing rows of either backend; every check-then-write is one transaction (or one statement). */
export interface PairingStore {
  /** Whether the user holds an approved pairing. */
  isApproved(platform: string, userId: string): Promise<boolean>
  /** A new code for the sender, or undefined when rate limited or too many are pending. */
  request(source: MessageSource): Promise<{ code: string; expiresAt: number } | undefined>
  /** Approves the pairing holding `code`, once; throws E_NOT_FOUND or E_BLOCKED (exit 2) otherwise. */
  approve(code: string): Promise<ApprovedPairing>
  revoke(platform: string, userId: string): Promise<boolean>
  pending(): Promise<PendingPairing[]>
  approved(): Promise<ApprovedPairing[]>
}

/** A pending row as either backend answers it (numbers may come back as strings from PostgreSQL's BIGINT). */
export interface PendingRow {
  salt: string
  code_hash: string
  platform: string
  user_id: string
  user_name: string | null
  created_at: number | string
  expires_at: number | string
  /** The newest-but-(maxFailures-1) failure within the lockout window (see LOCKED_AT_SQL): the lock runs from it. */
  locked_at?: number | string | null
}

export type Approval = { ok: true; pairing: ApprovedPairing } | { ok: false; lockedUntil?: number }

/**
 * The column `locked_at` for a pending row `p`, with the placeholders (window start, maxFailures - 1)
 * left to each backend. The lock lasts while maxFailures failures lie within the last lockoutMs: until
 * the oldest of the newest maxFailures ages out.
 */
export const lockedAtSql = (since: string, offset: string) =>
  `(SELECT f.at FROM gateway_pairing_failures f WHERE f.platform = p.platform AND f.user_id = p.user_id AND f.at > ${since} ORDER BY f.at DESC LIMIT 1 OFFSET ${offset}) AS locked_at`

export function generateCode(): string {
  let code = ''
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]
  return code
}

export const hashCode = (salt: string, code: string) => createHash('sha256').update(`${salt}:${code.toUpperCase()}`).digest('hex')

/** A fresh code with what the pending row keeps of it (the salt and hash, never the code). */
export function newOffer(limits: PairingLimits, now: number) {
  const code = generateCode()
  const salt = randomBytes(16).toString('hex')
  return { code, salt, codeHash: hashCode(salt, code), expiresAt: now + limits.codeTtlMs }
}

/** Whether a user who last asked at `lastAt`, with `othersPending` other users waiting on the platform, may ask now. */
export function mayRequest(limits: PairingLimits, now: number, lastAt: number | undefined, othersPending: number): boolean {
  if (lastAt !== undefined && now - lastAt < limits.requestIntervalMs) return false
  return othersPending < limits.maxPendingPerPlatform
}

const lockOf = (limits: PairingLimits, row: PendingRow) => (row.locked_at === null || row.locked_at === undefined ? undefined : Number(row.locked_at) + limits.lockoutMs)

/**
 * Which unexpired pending row `code` opens. Locked pairings are not compared at all, so the answer
 * cannot tell a right guess from a wrong one; on a miss, `open` are the rows the guess counts against.
 */
export function matchCode(limits: PairingLimits, rows: readonly PendingRow[], code: string): { match?: PendingRow; open: PendingRow[]; lockedUntil?: number } {
  const normalised = code.trim().toUpperCase()
  let lockedUntil: number | undefined
  const open: PendingRow[] = []
  for (const row of rows) {
    const until = lockOf(limits, row)
    if (until === undefined) open.push(row)
    else lockedUntil = Math.max(lockedUntil ?? 0, until)
  }
  const match = open.find((row) => safeEqual(hashCode(row.salt, normalised), row.code_hash))
  return { ...(match ? { match } : {}), open, ...(lockedUntil === undefined ? {} : { lockedUntil }) }
}

export const approvedPairing = (row: { platform: string; user_id: string; user_name: string | null }, approvedAt: number | string): ApprovedPairing =>
  ({ platform: row.platform, userId: row.user_id, userName: row.user_name ?? undefined, approvedAt: Number(approvedAt) })

export function pendingPairing(limits: PairingLimits, row: PendingRow): PendingPairing {
  const lockedUntil = lockOf(limits, row)
  return { platform: row.platform, userId: row.user_id, userName: row.user_name ?? undefined, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at), ...(lockedUntil ? { lockedUntil } : {}) }
}

/**
 * The answer to an approval, thrown after its transaction committed: a failure written inside a
 * transaction that then throws would be rolled back with it.
 */
export function settle(limits: PairingLimits, outcome: Approval): ApprovedPairing {
  if (outcome.ok) return outcome.pairing
  if (outcome.lockedUntil !== undefined) {
    throw new AgentError('E_BLOCKED', `no open pending pairing has that code; pairings locked after ${limits.maxFailures} failed approvals open again at ${new Date(outcome.lockedUntil).toISOString()}`, { exitCode: 2 })
  }
  throw new AgentError('E_NOT_FOUND', 'no pending pairing has that code (it may have expired)', { exitCode: 2 })
}
