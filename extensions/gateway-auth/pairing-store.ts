// Which pairing store: the backend of the `storage` service, looked up at first use (so a kernel
// that fails its storage extension fails pairing closed, and nothing opens at setup).

import { DATABASE_SERVICE, STORAGE_SERVICE, type DatabaseService, type Services, type StorageService } from 'agent/sdk'
import { DEFAULT_LIMITS, type PairingLimits, type PairingStore } from './pairing.ts'
import { PgPairingStore } from './pairing-pg.ts'
import { SqlitePairingStore } from './pairing-sqlite.ts'

export function openPairingStore(services: Pick<Services, 'get' | 'require'>, limits: PairingLimits = DEFAULT_LIMITS, now: () => number = Date.now): PairingStore {
  let chosen: PairingStore | undefined
  const store = (): PairingStore => {
    if (chosen) return chosen
    const storage = services.require<StorageService>(STORAGE_SERVICE)
    chosen = storage.backend === 'postgres'
      ? new PgPairingStore(() => storage.postgres(), limits, now)
      : new SqlitePairingStore(() => services.get<DatabaseService>(DATABASE_SERVICE), limits, now)
    return chosen
  }
  return {
    // async: a missing storage service rejects the call rather than throwing out of it.
    isApproved: async (platform, userId) => store().isApproved(platform, userId),
    request: async (source) => store().request(source),
    approve: async (code) => store().approve(code),
    revoke: async (platform, userId) => store().revoke(platform, userId),
    pending: async () => store().pending(),
    approved: async () => store().approved(),
  }
}
