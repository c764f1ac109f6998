// The `text_to_speech` tool: speaks a text with the configured provider and saves the audio under
// <agent_home>/audio/; in a gateway chat whose platform can send audio, the file is sent there too.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TTS_SERVICE, type AudioCapableAdapter, type AdapterDefinition, type RegistryHandle, type Services, type Settings, type TextToSpeech, type ToolWithBackends } from 'agent/sdk'
import { TTS_KEYS, type TtsConfig } from './settings.ts'

export function textToSpeechTool(config: TtsConfig, settings: Settings, services: Services, adapters: RegistryHandle<AdapterDefinition>): ToolWithBackends {
  return {
    name: 'text_to_speech',
    toolset: 'tts',
    description: 'Speak a text aloud: makes an audio file with the configured voice (saved under the agent home) and, in a messaging chat that can play audio, sends it there. Markdown is read as plain text; long text is cut.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, maxLength: 20_000, description: 'What to say' } },
      required: ['text'],
      additionalProperties: false,
    },
    backends: {
      setting: 'tts.provider',
      label: 'Text to speech',
      options: [
        { value: 'edge', label: 'Edge voices (free)', envKeys: [] },
        { value: 'elevenlabs', label: 'ElevenLabs', envKeys: ['ELEVENLABS_API_KEY'] },
        { value: 'openai', label: 'OpenAI-compatible /audio/speech', envKeys: ['OPENAI_API_KEY'] },
      ],
    },
    available(current) {
      const key = TTS_KEYS[config.provider]
      return !key || current.env(key)?.trim() ? true : `${key} is not set (tts.provider: ${config.provider})`
    },
    async execute({ input, signal, session }) {
      const tts = services.get<TextToSpeech>(TTS_SERVICE)
      if (!tts) throw new Error('text-to-speech is not loaded')
      const source = session.source
      const adapter = source ? (adapters.get(source.platform) as (AdapterDefinition & AudioCapableAdapter) | undefined) : undefined
      const voice = adapter?.voiceBubbles === true
      const spoken = await tts.speak(String((input as { text: string }).text), { format: voice ? 'ogg_opus' : 'mp3', signal })
      if (!spoken.ok) throw new Error(`text-to-speech failed: ${spoken.message}`)
      const dir = join(settings.home, 'audio')
      mkdirSync(dir, { recursive: true })
      const file = join(dir, `speech-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.${spoken.filename.split('.').pop()}`)
      writeFileSync(file, spoken.audio)
      const chatId = source?.chatId ?? source?.userId
      let sent = false
      if (adapter?.sendAudio && chatId) {
        await adapter.sendAudio(chatId, { data: spoken.audio, mimeType: spoken.mimeType, filename: spoken.filename, voice: voice && spoken.mimeType === 'audio/ogg' })
        sent = true
      }
      return { file, mimeType: spoken.mimeType, bytes: spoken.audio.byteLength, provider: spoken.provider, sentToChat: sent }
    },
  }
}
