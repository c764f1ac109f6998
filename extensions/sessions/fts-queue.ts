// Full-text indexing of messages, deferred: an FTS5 insert in a turn's own commit flushes a new index
// segment every commit (measured: about half of what storing a turn costs SQLite). Instead the
// message's id goes to messages_fts_pending in the same transaction as the message (so it is never
// lost, even by a killed process), and the ids are indexed in one batch: a second after the first
// unindexed write, and before any search (search finds everything written before it was asked).

import type { SqliteDatabase } from 'agent/sdk'

/** How long unindexed messages wait for company before they are indexed as one batch. */
export const INDEX_DELAY_MS = 1000

export const HAS_PENDING = 'SELECT 1 FROM messages_fts_pending LIMIT 1'
const INDEX_PENDING = `INSERT INTO messages_fts(rowid, content)
  SELECT m.id, m.content FROM messages_fts_pending p JOIN messages m ON m.id = p.id WHERE m.content IS NOT NULL ORDER BY p.id`
const CLEAR_PENDING = 'DELETE FROM messages_fts_pending'

type Prepare = (sql: string, pluck: boolean, db: SqliteDatabase) => { run(): unknown; get(): unknown }

/** Indexes every pending message (inside the caller's transaction). */
export function indexPending(db: SqliteDatabase, prepare: Prepare): void {
  prepare(INDEX_PENDING, false, db).run()
  prepare(CLEAR_PENDING, false, db).run()
}

/** Migration 2 of `sessions`: the insert trigger queues instead of indexing; delete and update skip what is still queued. */
export const DEFER_FTS_MIGRATION = `
  CREATE TABLE messages_fts_pending (id INTEGER PRIMARY KEY);
  DROP TRIGGER messages_fts_insert;
  DROP TRIGGER messages_fts_delete;
  DROP TRIGGER messages_fts_update;
  CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.content IS NOT NULL BEGIN
    INSERT OR IGNORE INTO messages_fts_pending(id) VALUES (new.id);
  END;
  CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.content IS NOT NULL BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) SELECT 'delete', old.id, old.content
      WHERE NOT EXISTS (SELECT 1 FROM messages_fts_pending WHERE id = old.id);
    DELETE FROM messages_fts_pending WHERE id = old.id;
  END;
  CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) SELECT 'delete', old.id, old.content
      WHERE old.content IS NOT NULL AND NOT EXISTS (SELECT 1 FROM messages_fts_pending WHERE id = old.id);
    DELETE FROM messages_fts_pending WHERE id = old.id;
    INSERT INTO messages_fts_pending(id) SELECT new.id WHERE new.content IS NOT NULL;
  END;
`
