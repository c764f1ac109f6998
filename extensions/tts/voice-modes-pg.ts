// `/voice` modes in PostgreSQL, shared by every gateway on the database: the table voice_modes as
// in state.db, read per reply (no memory copy: another instance may change a chat's mode), set with
// one upsert through the group commit.

import type { PgMigration, PostgresService, VoiceMode } from 'agent/sdk'
import type { VoiceModeRows } from './voice-modes.ts'

export const VOICE_MODES_PG_OWNER = 'tts-voice-modes'

export const VOICE_MODES_PG_MIGRATIONS: PgMigration[] = [
  { version: 1, up: 'CREATE TABLE voice_modes (chat TEXT PRIMARY KEY, mode TEXT NOT NULL, updated_at BIGINT NOT NULL)' },
]

export class PgVoiceModeRows implements VoiceModeRows {
  constructor(private readonly postgres: () => PostgresService) {}

  private async pg(): Promise<PostgresService> {
    const pg = this.postgres()
    await pg.migrate(VOICE_MODES_PG_OWNER, VOICE_MODES_PG_MIGRATIONS)
    return pg
  }

  async read(chat: string): Promise<string | undefined> {
    const [row] = await (await this.pg()).query<{ mode: string }>('SELECT mode FROM voice_modes WHERE chat = $1', [chat])
    return row?.mode
  }

  async write(chat: string, mode: VoiceMode, updatedAt: number): Promise<void> {
    await (await this.pg()).write((c) =>
      c.query('INSERT INTO voice_modes (chat, mode, updated_at) VALUES ($1, $2, $3) ON CONFLICT (chat) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at', [chat, mode, updatedAt]),
    )
  }
}
