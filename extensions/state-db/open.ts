// Opens <agent_home>/state.db: file mode 0600 before SQLite touches it, WAL, the synchronous level,
// busy timeout and foreign keys. better-sqlite3 is a native addon, required only when the database
// is first used (`agent --help` must not pay for it); synchronously, because db() is synchronous.

import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { AgentError, errorMessage, type SqliteDatabase } from 'agent/sdk'

export type SynchronousLevel = 'full' | 'normal'

export interface OpenOptions {
  path: string
  /**
   * `normal` (default): in WAL mode a commit is written to the WAL before it returns, so it survives
   * a killed process (kill -9); an OS crash or power cut may lose the last commits.
   * `full`: every commit is also fsynced, so it survives a power cut too (an fsync per commit).
   */
  synchronous: SynchronousLevel
  busyTimeoutMs: number
}

/** Creates the file (and the folder) private to the user, and tightens a file that already exists. */
function preparePrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600))
  chmodSync(path, 0o600)
  // SQLite gives -wal and -shm the database's mode, but files left by an older run keep theirs.
  for (const suffix of ['-wal', '-shm']) if (existsSync(path + suffix)) chmodSync(path + suffix, 0o600)
}

type DatabaseConstructor = typeof import('better-sqlite3')

export function openDatabase(options: OpenOptions): SqliteDatabase {
  try {
    const Database = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor
    preparePrivateFile(options.path)
    const db = new Database(options.path, { timeout: options.busyTimeoutMs })
    try {
      db.pragma('journal_mode = WAL')
      db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`)
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`)
      db.pragma('foreign_keys = ON')
      return db
    } catch (error) {
      db.close()
      throw error
    }
  } catch (error) {
    throw new AgentError('E_STATE_DB', `cannot open ${options.path}: ${errorMessage(error)}`, { cause: error })
  }
}
