// The Voice section of `agent doctor`: what the stt and tts services say about themselves (provider,
// fallback, engine, model, keys), read through their `checks()` (sdk/voice.ts).

import { errorMessage, STT_SERVICE, TTS_SERVICE, type CliContext, type SpeechToText, type TextToSpeech } from 'agent/sdk'
import type { Report } from './report.ts'

export async function checkVoice(report: Report, ctx: Pick<CliContext, 'services'>): Promise<void> {
  const s = 'Voice'
  for (const [name, service] of [['stt', ctx.services.get<SpeechToText>(STT_SERVICE)], ['tts', ctx.services.get<TextToSpeech>(TTS_SERVICE)]] as const) {
    if (!service) {
      report.add(s, name, 'info', `not loaded (extension ${name}): ${name === 'stt' ? 'voice messages are not transcribed' : 'replies are never spoken'}`)
      continue
    }
    try {
      for (const check of await service.checks()) report.add(s, check.name, check.level, check.detail, check.fix)
    } catch (error) {
      report.add(s, name, 'warn', `its check failed: ${errorMessage(error)}`)
    }
  }
}
