// Each chat's /voice mode on both storage backends: off, voice_only, all, kept across restarts; a
// bad mode changes nothing; per chat, whoever writes in it. And two gateways sharing one store: a
// mode set on one is what the other speaks by (no stale memory copy).

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { describe, test, type TestContext } from 'node:test'
import { speakReply, TTS_SERVICE, VOICE_MODES_SERVICE, type CommandDefinition, type Logger, type Services, type VoiceModes } from 'agent/sdk'
import { backendSkip, createTestKernel, makeTempHome, STORAGE_BACKENDS, testStorage, type TestStorage } from 'agent/sdk/testing'

const source = { platform: 'discord', chatId: 'c1', userId: 'u1', chatType: 'group' as const }

async function kernel(t: TestContext, storage: TestStorage, home?: string) {
  const k = await createTestKernel({ builtins: ['state-db', 'tts'], config: storage.config, ...(home ? { home } : {}) })
  t.after(() => k.close())
  const run = async (args: string) => {
    const replies: string[] = []
    await (k.kernel.registries.commands.get('voice') as CommandDefinition).slash!({ args, invokedAs: 'voice', surface: 'gateway', reply: (text) => void replies.push(text), source })
    return replies.join('\n')
  }
  return { k, run, modes: k.kernel.services.get<VoiceModes>(VOICE_MODES_SERVICE)! }
}

for (const backend of STORAGE_BACKENDS) {
  describe(`voice modes [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('/voice in a chat: off, voice_only, all, stored across restarts; a bad mode changes nothing', async (t) => {
      const storage = await testStorage(t, backend)
      const home = makeTempHome('agent-voice-')
      t.after(() => rmSync(home, { recursive: true, force: true }))
      const first = await kernel(t, storage, home)
      assert.match(await first.run(''), /^Voice mode: off/)
      assert.match(await first.run('all'), /^Voice mode: all \(every reply is spoken too/)
      assert.match(await first.run('loud'), /"loud" is not a mode; use off, voice_only or all/)
      assert.equal(await first.modes.get(source), 'all')
      assert.equal(await first.modes.get({ ...source, userId: 'u2' }), 'all', 'per chat, whoever writes')
      assert.equal(await first.modes.get({ ...source, chatId: 'c2' }), 'off')
      assert.equal(await first.modes.get({ ...source, threadId: 't1' }), 'off', 'a thread is a chat of its own')
      await first.k.close()
      const second = await kernel(t, storage, home)
      assert.equal(await second.modes.get(source), 'all')
      assert.match(await second.run('voice_only'), /^Voice mode: voice_only/)
      assert.equal(await second.modes.get(source), 'voice_only')
    })

    test('two gateways on one store: a mode set on one is read on the other', async (t) => {
      const storage = await testStorage(t, backend)
      const a = await kernel(t, storage)
      const b = await kernel(t, storage, backend === 'sqlite' ? a.k.home : undefined)
      assert.equal(await b.modes.get(source), 'off')
      await a.modes.set(source, 'all')
      assert.equal(await b.modes.get(source), 'all')
      await b.modes.set(source, 'off')
      assert.equal(await a.modes.get(source), 'off', 'no stale memory copy')
    })
  })
}

test('speakReply: a voice mode that cannot be read sends the text only, with a warning; a readable one speaks', async () => {
  const spoken: string[] = []
  const warnings: string[] = []
  const log = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} } as unknown as Logger
  const adapter = { sendAudio: async () => void spoken.push('audio') }
  const services = (get: () => Promise<string>) => {
    const values: Record<string, unknown> = { [VOICE_MODES_SERVICE]: { get, set: async () => {} }, [TTS_SERVICE]: { speak: async () => ({ ok: true, audio: new Uint8Array([1]), mimeType: 'audio/mpeg', filename: 'a.mp3', provider: 'fake' }), checks: async () => [] } }
    return { get: (name: string) => values[name] } as unknown as Pick<Services, 'get'>
  }
  await speakReply(services(async () => Promise.reject(new Error('database away'))), adapter, source, 'typed', 'answer', log)
  assert.deepEqual(spoken, [])
  assert.match(warnings.join('\n'), /voice mode of discord unreadable, sending text only: database away/)
  await speakReply(services(async () => 'all'), adapter, source, 'typed', 'answer', log)
  assert.deepEqual(spoken, ['audio'], 'the look-alike: a mode that reads speaks')
})
