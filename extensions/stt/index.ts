// Speech-to-text: the `stt` service the gateway's adapters (through `transcribeAudio` in the SDK), the
// chat's `/voice` and the `transcribe_audio` tool use. Providers `local` (whisper.cpp, or any `stt.local.command`) and
// `api` (OpenAI-compatible /audio/transcriptions); the fallback rule lives in service.ts.

import { defineExtension, STT_SERVICE } from 'agent/sdk'
import { createSttService } from './service.ts'
import { STT_CONFIG_SCHEMA, type SttConfig } from './settings.ts'
import { transcribeAudioTool } from './tool.ts'

export default defineExtension<SttConfig>({
  name: 'stt',
  version: '1.0.0',
  description: 'Speech-to-text for voice messages: local whisper.cpp or an OpenAI-compatible API',
  configKey: 'stt',
  config: STT_CONFIG_SCHEMA,
  setup(api) {
    api.services.provide(STT_SERVICE, createSttService(api.config as SttConfig, api.settings, api.log))
    api.tools.register(transcribeAudioTool(api.services))
  },
})
