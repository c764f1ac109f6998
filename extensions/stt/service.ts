// The speech-to-text service and its fallback rule. With `stt.provider` unset, local is tried first
// and the API second (or the other way round when only one is usable); an explicitly chosen provider
// is the only one used unless `stt.fallback: true`, so audio never leaves the machine silently. When
// nothing can transcribe, the user gets one sentence saying what to configure.

import { existsSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import { errorMessage, type AudioInput, type Logger, type Settings, type SpeechToText, type TranscribeResult, type VoiceCheck } from 'agent/sdk'
import { transcribeWithApi } from './api-engine.ts'
import { checkAudio, decodePcm, loadWhisperBinding, type AudioFormat } from './audio.ts'
import { commandWords, transcribeWithCommand } from './command-engine.ts'
import { ensureModel, modelPath, modelPresent } from './model-download.ts'
import { sttApiKey, type SttConfig } from './settings.ts'
import { transcribeWithWhisper } from './whisper-engine.ts'

type Provider = 'local' | 'api'
type Attempt = { ok: true; text: string } | { ok: false; reason: string }

const WHAT_TO_CONFIGURE = 'set STT_API_KEY (or OPENAI_API_KEY) in .env for a transcription API, or use the local engine (stt.provider: local; its model is downloaded on first use, or set stt.local.command)'

/** Whether a program is on PATH (or at that path): the command engine's usability. */
function onPath(program: string): boolean {
  if (isAbsolute(program) || program.includes('/')) return existsSync(program)
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, program)))
}

export function createSttService(config: SttConfig, settings: Settings, log: Logger): SpeechToText {
  const preferred: Provider = config.provider ?? 'local'
  const other: Provider = preferred === 'local' ? 'api' : 'local'
  const mayFallBack = config.provider === undefined || config.fallback

  /** Why local cannot run at all (checked before any download), or undefined. */
  async function localUnusable(): Promise<string | undefined> {
    if (config.local.command) {
      const program = commandWords(config.local.command)[0] ?? ''
      return onPath(program) ? undefined : `stt.local.command's program "${program}" is not installed`
    }
    const binding = await loadWhisperBinding()
    return 'error' in binding ? binding.error : undefined
  }

  async function tryLocal(data: Uint8Array, format: AudioFormat, signal?: AbortSignal): Promise<Attempt> {
    const unusable = await localUnusable()
    if (unusable) return { ok: false, reason: unusable }
    try {
      const samples = await decodePcm(data, format)
      if (config.local.command) return { ok: true, text: await transcribeWithCommand(config.local.command, samples, signal) }
      const path = await ensureModel({ home: settings.home, model: config.local.model, url: config.local.model_url, ...(config.local.model_sha256 ? { sha256: config.local.model_sha256 } : {}), log })
      return { ok: true, text: await transcribeWithWhisper(path, samples, config.local.language, signal) }
    } catch (error) {
      return { ok: false, reason: errorMessage(error) }
    }
  }

  async function tryApi(data: Uint8Array, format: AudioFormat, signal?: AbortSignal): Promise<Attempt> {
    const key = sttApiKey(settings)
    if (!key) return { ok: false, reason: 'no STT_API_KEY or OPENAI_API_KEY is set' }
    try {
      return { ok: true, text: await transcribeWithApi(config.api, key, data, format, signal) }
    } catch (error) {
      return { ok: false, reason: errorMessage(error) }
    }
  }

  return {
    async transcribe(input: AudioInput, options = {}): Promise<TranscribeResult> {
      const checked = checkAudio(input)
      if ('error' in checked) return { ok: false, message: `the voice message could not be transcribed: ${checked.error}` }
      const order: Provider[] = mayFallBack ? [preferred, other] : [preferred]
      const reasons: string[] = []
      for (const provider of order) {
        const attempt = provider === 'local' ? await tryLocal(input.data, checked.format, options.signal) : await tryApi(input.data, checked.format, options.signal)
        if (attempt.ok) {
          if (reasons.length) log.info(`transcribed with ${provider} after ${order[0]} failed`)
          return { ok: true, text: attempt.text, provider }
        }
        log.warn(`speech-to-text ${provider}: ${attempt.reason}`)
        reasons.push(`${provider}: ${attempt.reason}`)
      }
      if (!mayFallBack) {
        return { ok: false, message: `voice messages cannot be transcribed: stt.provider is ${preferred} and ${reasons[0]!.slice(preferred.length + 2)} (set stt.fallback: true to allow the ${other} provider)` }
      }
      return { ok: false, message: `voice messages cannot be transcribed here (${reasons.join('; ')}): ${WHAT_TO_CONFIGURE}` }
    },

    async checks(): Promise<VoiceCheck[]> {
      const out: VoiceCheck[] = []
      const local = await localUnusable()
      const key = sttApiKey(settings)
      out.push({ name: 'stt.provider', level: 'info', detail: `${config.provider ?? 'local (default)'}${mayFallBack ? `, falls back to ${other}` : ', no fallback (stt.fallback: false)'}` })
      if (config.local.command) out.push({ name: 'stt local', level: local ? 'warn' : 'ok', detail: local ?? `command ${commandWords(config.local.command)[0]}`, ...(local ? { fix: 'install it, or change stt.local.command' } : {}) })
      else if (local) out.push({ name: 'stt local', level: 'warn', detail: local, fix: 'use stt.provider: api, or set stt.local.command (e.g. pocketsphinx)' })
      else out.push({ name: 'stt local', level: 'ok', detail: modelPresent(settings.home, config.local.model) ? `whisper.cpp, model ${modelPath(settings.home, config.local.model)}` : `whisper.cpp; model ${config.local.model} (~150 MB for base) downloads on the first voice message` })
      out.push({ name: 'stt api', level: key ? 'ok' : 'info', detail: key ? `${config.api.base_url} (${config.api.model})` : 'no STT_API_KEY or OPENAI_API_KEY', ...(key ? {} : { fix: 'agent config set STT_API_KEY <key>' }) })
      const usable = (preferred === 'local' ? !local : Boolean(key)) || (mayFallBack && (other === 'local' ? !local : Boolean(key)))
      if (!usable) out.push({ name: 'speech-to-text', level: 'warn', detail: 'no provider is usable: voice messages get a message saying so', fix: WHAT_TO_CONFIGURE })
      return out
    },
  }
}
