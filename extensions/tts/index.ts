// Text-to-speech: the `tts` service (edge, free and the default; elevenlabs; openai-compatible), each
// chat's `/voice` mode (the `voice-modes` service the gateway reads through `speakReply` in the SDK),
// the `text_to_speech` tool, and the CLI's `/voice` microphone prompt.

import { defineExtension, STORAGE_SERVICE, TTS_SERVICE, VOICE_MODES_SERVICE, type StorageService, type TextToSpeech } from 'agent/sdk'
import { TTS_CONFIG_SCHEMA, type TtsConfig } from './settings.ts'
import { textToSpeechTool } from './tool.ts'
import { voiceCommand } from './voice-command.ts'
import { createVoiceModes } from './voice-modes.ts'
import { VOICE_MODES_PG_MIGRATIONS, VOICE_MODES_PG_OWNER } from './voice-modes-pg.ts'

export default defineExtension<TtsConfig>({
  name: 'tts',
  version: '1.0.0',
  description: 'Text-to-speech (Edge, ElevenLabs, OpenAI-compatible), /voice and the text_to_speech tool',
  configKey: 'tts',
  // Each chat's /voice mode is kept where `storage` says (state.db, or PostgreSQL shared by several gateways).
  dependsOn: ['storage'],
  config: TTS_CONFIG_SCHEMA,
  setup(api) {
    const config = api.config as TtsConfig
    api.services.require<StorageService>(STORAGE_SERVICE).declare(VOICE_MODES_PG_OWNER, VOICE_MODES_PG_MIGRATIONS)
    const modes = createVoiceModes(api.services)
    // The providers load when something is first spoken, not at every start.
    let service: Promise<TextToSpeech> | undefined
    const load = () => (service ??= import('./service.ts').then((m) => m.createTtsService(config, api.settings, api.log)))
    api.services.provide<TextToSpeech>(TTS_SERVICE, {
      speak: async (text, options) => (await load()).speak(text, options),
      checks: async () => (await load()).checks(),
    })
    api.services.provide(VOICE_MODES_SERVICE, modes)
    api.commands.register(voiceCommand(modes, api.services))
    api.tools.register(textToSpeechTool(config, api.settings, api.services, api.adapters))
  },
})
