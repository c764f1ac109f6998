// The `transcribe_audio` tool: the agent reads an audio file (a recording the user pointed to, a
// saved voice note) as text through the `stt` service, with its fallback rule. It declares
// `stt.provider` so `agent tools` offers the choice and `agent doctor` checks the key.

import { statSync, readFileSync } from 'node:fs'
import { MAX_AUDIO_BYTES, STT_SERVICE, toolPath, audioMimeType, type Services, type SpeechToText, type ToolWithBackends } from 'agent/sdk'

export function transcribeAudioTool(services: Services): ToolWithBackends {
  return {
    name: 'transcribe_audio',
    toolset: 'stt',
    description: 'Transcribe an audio file (ogg/opus, mp3, m4a, wav or webm, at most 25 MB) to text with the configured speech-to-text provider.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1, description: 'The audio file, relative to the working directory' } },
      required: ['path'],
      additionalProperties: false,
    },
    backends: {
      setting: 'stt.provider',
      label: 'Speech to text',
      options: [
        { value: 'local', label: 'whisper.cpp on this machine (model downloaded on first use)', envKeys: [] },
        { value: 'api', label: 'OpenAI-compatible /audio/transcriptions', envKeys: ['STT_API_KEY', 'OPENAI_API_KEY'] },
      ],
    },
    async execute({ input, signal, session }) {
      const stt = services.get<SpeechToText>(STT_SERVICE)
      if (!stt) throw new Error('speech-to-text is not loaded')
      const { path, real } = toolPath((input as { path: unknown }).path, session.cwd)
      const stat = statSync(real, { throwIfNoEntry: false })
      if (!stat?.isFile()) throw new Error(`${path} is not a file`)
      if (stat.size > MAX_AUDIO_BYTES) throw new Error(`${path} is ${(stat.size / 1048576).toFixed(1)} MB; at most 25 MB can be transcribed`)
      const mimeType = audioMimeType(path)
      const result = await stt.transcribe({ data: readFileSync(real), filename: path, ...(mimeType ? { mimeType } : {}) }, { signal })
      if (!result.ok) throw new Error(result.message)
      return { text: result.text, provider: result.provider }
    },
  }
}
