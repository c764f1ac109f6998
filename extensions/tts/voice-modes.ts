// Each chat's `/voice` mode (off, voice_only: replies to voice messages are spoken, all: every reply
// is spoken), kept in state.db so it outlives a restart; read at every reply from a memory copy.

import { DATABASE_SERVICE, VOICE_MODES, type DatabaseService, type MessageSource, type Services, type VoiceMode, type VoiceModes } from 'agent/sdk'

const MIGRATIONS = [{ version: 1, up: 'CREATE TABLE voice_modes (chat TEXT PRIMARY KEY, mode TEXT NOT NULL, updated_at INTEGER NOT NULL)' }]

/** One chat, whoever writes in it: the platform, the chat (or the user of a direct chat) and the thread. */
export function voiceChatKey(source: MessageSource & { threadId?: string }): string {
  return `${source.platform}:${source.chatId ?? source.userId ?? ''}${source.threadId ? `:${source.threadId}` : ''}`
}

export function createVoiceModes(services: Services): VoiceModes {
  let cache: Map<string, VoiceMode> | undefined
  const database = () => {
    const db = services.get<DatabaseService>(DATABASE_SERVICE)
    db?.migrate('tts-voice-modes', MIGRATIONS)
    return db
  }
  const load = (): Map<string, VoiceMode> => {
    if (cache) return cache
    cache = new Map()
    const rows = (database()?.db().prepare('SELECT chat, mode FROM voice_modes').all() ?? []) as Array<{ chat: string; mode: VoiceMode }>
    for (const row of rows) if (VOICE_MODES.includes(row.mode)) cache.set(row.chat, row.mode)
    return cache
  }
  return {
    get: (source) => load().get(voiceChatKey(source)) ?? 'off',
    async set(source, mode) {
      const key = voiceChatKey(source)
      const modes = load()
      await database()?.write((db) => db.prepare('INSERT INTO voice_modes (chat, mode, updated_at) VALUES (?, ?, ?) ON CONFLICT(chat) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at').run(key, mode, Date.now()))
      modes.set(key, mode)
    },
  }
}
