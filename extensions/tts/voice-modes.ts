// Each chat's `/voice` mode (off, voice_only: replies to voice messages are spoken, all: every reply
// is spoken), kept where `storage` says so it outlives a restart: state.db, or PostgreSQL shared by
// several gateways (voice-modes-pg.ts). Read at every reply from the store, not a memory copy,
// since another gateway may have changed it.

import {
  DATABASE_SERVICE, STORAGE_SERVICE, VOICE_MODES,
  type DatabaseService, type MessageSource, type Migration, type Services, type StorageService, type VoiceMode, type VoiceModes,
} from 'agent/sdk'
import { PgVoiceModeRows } from './voice-modes-pg.ts'

const MIGRATIONS: Migration[] = [{ version: 1, up: 'CREATE TABLE voice_modes (chat TEXT PRIMARY KEY, mode TEXT NOT NULL, updated_at INTEGER NOT NULL)' }]

/** The rows of table voice_modes, by chat key: what each backend provides. */
export interface VoiceModeRows {
  read(chat: string): Promise<string | undefined>
  /** One upsert: the last writer wins. */
  write(chat: string, mode: VoiceMode, updatedAt: number): Promise<void>
}

/** One chat, whoever writes in it: the platform, the chat (or the user of a direct chat) and the thread. */
export function voiceChatKey(source: MessageSource & { threadId?: string }): string {
  return `${source.platform}:${source.chatId ?? source.userId ?? ''}${source.threadId ? `:${source.threadId}` : ''}`
}

/** A stored value that is not a mode (an older or foreign row) reads as off. */
const knownMode = (value: string | undefined): VoiceMode => (value !== undefined && (VOICE_MODES as readonly string[]).includes(value) ? (value as VoiceMode) : 'off')

/** state.db (one indexed read per reply; a gateway sharing the file sees a change at once); without it, memory. */
export function sqliteVoiceModeRows(database: () => DatabaseService | undefined): VoiceModeRows {
  const memory = new Map<string, string>()
  const db = () => {
    const service = database()
    service?.migrate('tts-voice-modes', MIGRATIONS)
    return service
  }
  return {
    async read(chat) {
      const service = db()
      if (!service) return memory.get(chat)
      return (service.db().prepare('SELECT mode FROM voice_modes WHERE chat = ?').get(chat) as { mode: string } | undefined)?.mode
    },
    async write(chat, mode, updatedAt) {
      const service = db()
      if (!service) return void memory.set(chat, mode)
      await service.write((d) => d.prepare('INSERT INTO voice_modes (chat, mode, updated_at) VALUES (?, ?, ?) ON CONFLICT(chat) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at').run(chat, mode, updatedAt))
    },
  }
}

/** The `voice-modes` service on the backend of `storage`, chosen at the first call. */
export function createVoiceModes(services: Pick<Services, 'get' | 'require'>): VoiceModes {
  let rows: VoiceModeRows | undefined
  const store = (): VoiceModeRows => {
    if (rows) return rows
    const storage = services.require<StorageService>(STORAGE_SERVICE)
    rows = storage.backend === 'postgres' ? new PgVoiceModeRows(() => storage.postgres()) : sqliteVoiceModeRows(() => services.get<DatabaseService>(DATABASE_SERVICE))
    return rows
  }
  return {
    get: async (source) => knownMode(await store().read(voiceChatKey(source))),
    set: async (source, mode) => store().write(voiceChatKey(source), mode, Date.now()),
  }
}
