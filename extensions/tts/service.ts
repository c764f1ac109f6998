// The text-to-speech service: markdown stripped, the text capped at a sentence end, the configured
// provider asked once. Never throws: a failure is `{ ok: false, message }` and a logged warning,
// so a reply falls back to its text.

import { errorMessage, stripMarkdown, type Logger, type Settings, type SpeakResult, type SpeechFormat, type TextToSpeech, type VoiceCheck } from 'agent/sdk'
import { edgeSpeak } from './edge.ts'
import { elevenLabsSpeak, openAiSpeak } from './paid-providers.ts'
import { TTS_KEYS, ttsKey, type TtsConfig } from './settings.ts'

/** Plain text of at most `max` characters, cut after the last sentence end that fits. */
export function speakableText(text: string, max: number): string {
  const plain = stripMarkdown(text).replace(/https?:\/\/\S+/g, 'a link').replace(/\s+/g, ' ').trim()
  if (plain.length <= max) return plain
  const cut = plain.slice(0, max)
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '))
  return end > max / 2 ? cut.slice(0, end + 1) : `${cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : max)}…`
}

export function createTtsService(config: TtsConfig, settings: Settings, log: Logger): TextToSpeech {
  return {
    async speak(text: string, options: { format?: SpeechFormat; signal?: AbortSignal } = {}): Promise<SpeakResult> {
      const spoken = speakableText(text, config.max_chars)
      if (!spoken) return { ok: false, message: 'there is no text to speak' }
      const format = options.format ?? 'mp3'
      const provider = config.provider
      const key = ttsKey(settings, provider)
      if (TTS_KEYS[provider] && !key) {
        log.warn(`text-to-speech ${provider}: ${TTS_KEYS[provider]} is not set`)
        return { ok: false, message: `${TTS_KEYS[provider]} is not set (tts.provider: ${provider})` }
      }
      try {
        const audio =
          provider === 'edge' ? await edgeSpeak(config.edge.endpoint, config.edge.voice, spoken, format, options.signal)
          : provider === 'elevenlabs' ? await elevenLabsSpeak(config.elevenlabs, key!, spoken, options.signal)
          : await openAiSpeak(config.openai, key!, spoken, format, options.signal)
        return { ok: true, ...audio, provider }
      } catch (error) {
        log.warn(`text-to-speech ${provider} failed: ${errorMessage(error)}`)
        return { ok: false, message: errorMessage(error) }
      }
    },

    async checks(): Promise<VoiceCheck[]> {
      const provider = config.provider
      const keyName = TTS_KEYS[provider]
      if (!keyName) return [{ name: 'tts.provider', level: 'ok', detail: `edge (free), voice ${config.edge.voice}` }]
      const key = ttsKey(settings, provider)
      return [{ name: 'tts.provider', level: key ? 'ok' : 'warn', detail: `${provider}${key ? '' : `: ${keyName} is not set (replies stay text-only)`}`, ...(key ? {} : { fix: `agent config set ${keyName} <key>, or agent config set tts.provider edge` }) }]
    },
  }
}
