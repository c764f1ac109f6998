// Speech-to-text: the `stt` service the gateway's adapters (through `transcribeAudio` in the SDK), the
// chat's `/voice` and the `transcribe_audio` tool use. Providers `local` (whisper.cpp, or any
// `stt.local.command`) and `api` (OpenAI-compatible /audio/transcriptions); the fallback rule lives in
// service.ts.

import { defineExtension, STT_SERVICE, type SpeechToText } from 'agent/sdk'
import { STT_CONFIG_SCHEMA, type SttConfig } from './settings.ts'
import { transcribeAudioTool } from './tool.ts'

export default defineExtension<SttConfig>({
  name: 'stt',
  version: '1.0.0',
  description: 'Speech-to-text for voice messages: local whisper.cpp or an OpenAI-compatible API',
  configKey: 'stt',
  config: STT_CONFIG_SCHEMA,
  setup(api) {
    // The engines load on the first voice message, not at every start.
    let service: Promise<SpeechToText> | undefined
    const load = () => (service ??= import('./service.ts').then((m) => m.createSttService(api.config as SttConfig, api.settings, api.log)))
    api.services.provide<SpeechToText>(STT_SERVICE, {
      transcribe: async (input, options) => (await load()).transcribe(input, options),
      checks: async () => (await load()).checks(),
    })
    api.tools.register(transcribeAudioTool(api.services))
  },
})
