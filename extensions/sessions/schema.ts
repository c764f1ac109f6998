// The sessions tables in state.db, as versioned migrations of owner `sessions`. messages_fts is an
// external-content FTS5 index over messages.content, kept in sync by triggers (a cascade delete of a
// session fires them too); since version 2 new messages are indexed in batches (fts-queue.ts).

import type { Migration } from 'agent/sdk'
import { DEFER_FTS_MIGRATION } from './fts-queue.ts'

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT,
        parent_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
        lineage TEXT,
        source TEXT NOT NULL DEFAULT 'cli',
        user_id TEXT,
        chat_id TEXT,
        model TEXT,
        provider TEXT,
        personality TEXT,
        cwd TEXT,
        started_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        ended_at INTEGER,
        end_reason TEXT,
        last_exit_reason TEXT,
        message_count INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        api_calls INTEGER NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX sessions_title ON sessions(title) WHERE title IS NOT NULL;
      CREATE INDEX sessions_updated ON sessions(updated_at DESC);
      CREATE INDEX sessions_parent ON sessions(parent_id, started_at DESC);
      CREATE INDEX sessions_origin ON sessions(source, user_id, chat_id, updated_at DESC);

      CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content TEXT,
        parts TEXT,
        tool_calls TEXT,
        tool_call_id TEXT,
        name TEXT,
        reasoning TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX messages_session ON messages(session_id, id);

      CREATE VIRTUAL TABLE messages_fts USING fts5(
        content, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.content IS NOT NULL BEGIN
        INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.content IS NOT NULL BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) SELECT 'delete', old.id, old.content WHERE old.content IS NOT NULL;
        INSERT INTO messages_fts(rowid, content) SELECT new.id, new.content WHERE new.content IS NOT NULL;
      END;
    `,
  },
  // Indexing moves out of the turn's commit (fts-queue.ts).
  { version: 2, up: DEFER_FTS_MIGRATION },
]
