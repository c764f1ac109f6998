// Random identifiers for hot paths (session, run and response ids). randomBytes() makes a call into
// the OS entropy source per id; a pooled buffer refilled from the same CSPRNG makes ids nearly free.
// For keys and salts, use node:crypto randomBytes directly.

import { randomFillSync } from 'node:crypto'

const POOL_SIZE = 4096
const pool = Buffer.alloc(POOL_SIZE)
let offset = POOL_SIZE

/** `bytes` random bytes as lowercase hex (2 × bytes characters). */
export function randomHex(bytes: number): string {
  if (bytes > POOL_SIZE) throw new RangeError(`randomHex: at most ${POOL_SIZE} bytes`)
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool)
    offset = 0
  }
  // Each byte is handed out once: the offset only moves on until the pool is refilled.
  const hex = pool.toString('hex', offset, offset + bytes)
  offset += bytes
  return hex
}
