// Voice as other extensions see it: the speech-to-text service (`services.get<SpeechToText>('stt')`,
// extension `stt`) and the text-to-speech service (`'tts'`, extension `tts`), and the ONE place where
// an adapter turns an inbound voice note or audio attachment into text the agent reads
// (`transcribeAudio`), and where a reply is spoken before its text (`speakReply`).

import { errorMessage } from './errors.ts'
import type { Logger, MessageSource, Services } from './types.ts'

export const STT_SERVICE = 'stt'
export const TTS_SERVICE = 'tts'

/** Largest audio accepted for transcription (the OpenAI-compatible APIs' limit). */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024

export interface AudioInput {
  data: Uint8Array
  /** `audio/ogg`, `audio/mpeg` …; the file name's extension is used when absent. */
  mimeType?: string
  filename?: string
}

/** A transcript, or why there is none in words for the user (never a stack trace, never a key). */
export type TranscribeResult = { ok: true; text: string; provider: 'local' | 'api' } | { ok: false; message: string }

export interface VoiceCheck {
  name: string
  level: 'ok' | 'info' | 'warn' | 'fail'
  detail: string
  fix?: string
}

export interface SpeechToText {
  transcribe(input: AudioInput, options?: { signal?: AbortSignal }): Promise<TranscribeResult>
  /** For `agent doctor`: the configured provider, what falls back to what, what is missing. */
  checks(): Promise<VoiceCheck[]>
}

/** `ogg_opus` for platforms that show voice bubbles, `mp3` elsewhere. */
export type SpeechFormat = 'ogg_opus' | 'mp3'

export type SpeakResult = { ok: true; audio: Uint8Array; mimeType: string; filename: string; provider: string } | { ok: false; message: string }

export interface TextToSpeech {
  /** Markdown is stripped and the text capped before speaking. Never throws: a failure is `{ ok: false }`. */
  speak(text: string, options?: { format?: SpeechFormat; signal?: AbortSignal }): Promise<SpeakResult>
  checks(): Promise<VoiceCheck[]>
}

/** What a chat gets spoken: nothing, replies to voice messages, or every reply. Set with `/voice`. */
export type VoiceMode = 'off' | 'voice_only' | 'all'
export const VOICE_MODES: readonly VoiceMode[] = ['off', 'voice_only', 'all']

const AUDIO_EXTENSIONS: Record<string, string> = {
  ogg: 'audio/ogg', oga: 'audio/ogg', opus: 'audio/ogg', mp3: 'audio/mpeg', m4a: 'audio/mp4', mp4: 'audio/mp4',
  wav: 'audio/wav', webm: 'audio/webm', mpga: 'audio/mpeg', mpeg: 'audio/mpeg', aac: 'audio/aac', flac: 'audio/flac', amr: 'audio/amr',
}

/** Whether an attachment is audio (by its MIME type, else its file name): adapters transcribe those. */
export function isAudioAttachment(mimeType: string | undefined | null, filename?: string | null): boolean {
  if (mimeType) return /^audio\//i.test(mimeType) || /^video\/(ogg|webm)$/i.test(mimeType)
  const ext = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1]
  return Boolean(ext && AUDIO_EXTENSIONS[ext])
}

/** The MIME type a file name's extension stands for (audio only). */
export function audioMimeType(filename: string | undefined | null): string | undefined {
  const ext = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1]
  return ext ? AUDIO_EXTENSIONS[ext] : undefined
}

/** The first line of a prompt made from a voice message: `speakReply` in `voice_only` mode looks for it. */
export const VOICE_PROMPT_MARK = '[voice message'

/** Whether a prompt came from a voice message (`transcribeAudio` wrote its line). */
export function isVoicePrompt(text: string): boolean {
  return text.includes(`${VOICE_PROMPT_MARK}, transcribed]`)
}

export interface InboundAudio {
  filename?: string
  mimeType?: string
  /** Bytes, when the platform says so: over MAX_AUDIO_BYTES is refused without downloading. */
  size?: number
  /** Downloads the audio (the adapter knows how: a URL, an RPC, a media API). */
  fetch(signal?: AbortSignal): Promise<Uint8Array>
}

/**
 * The line the agent reads for one inbound audio: `[voice message, transcribed]: <text>` when the
 * `stt` service transcribed it, else `[voice message: <why not>]` (the friendly message says what to
 * configure). Never throws: a failed download or transcription becomes the line and a log entry.
 */
export async function transcribeAudio(services: Pick<Services, 'get'>, audio: InboundAudio, log?: Logger, signal?: AbortSignal): Promise<string> {
  const stt = services.get<SpeechToText>(STT_SERVICE)
  const name = audio.filename ?? 'audio'
  if (!stt) return `${VOICE_PROMPT_MARK}: ${name} could not be transcribed: speech-to-text is not loaded (extension stt)]`
  if (audio.size !== undefined && audio.size > MAX_AUDIO_BYTES) return `${VOICE_PROMPT_MARK}: ${name} is larger than 25 MB and was not transcribed]`
  try {
    const data = await audio.fetch(signal)
    const result = await stt.transcribe({ data, ...(audio.mimeType ? { mimeType: audio.mimeType } : {}), ...(audio.filename ? { filename: audio.filename } : {}) }, signal ? { signal } : {})
    if (result.ok) return `${VOICE_PROMPT_MARK}, transcribed]: ${result.text.trim() || '(silence)'}`
    log?.warn(`voice message ${name} not transcribed: ${result.message}`)
    return `${VOICE_PROMPT_MARK}: ${result.message}]`
  } catch (error) {
    log?.warn(`voice message ${name} could not be fetched: ${errorMessage(error)}`)
    return `${VOICE_PROMPT_MARK}: ${name} could not be downloaded]`
  }
}

/** Where the gateway keeps each chat's `/voice` mode (extension `tts`). */
export interface VoiceModes {
  /** Async: kept in the shared storage, where another gateway may have changed it. */
  get(source: MessageSource & { threadId?: string }): Promise<VoiceMode>
  set(source: MessageSource & { threadId?: string }, mode: VoiceMode): Promise<void>
}

export const VOICE_MODES_SERVICE = 'voice-modes'

/** What an adapter that can send audio declares (extra field on a GatewayAdapter). */
export interface AudioCapableAdapter {
  /** Sends one audio file to a chat; `voice: true` asks for a voice bubble where the platform has one. */
  sendAudio?(chatId: string, audio: { data: Uint8Array; mimeType: string; filename: string; voice: boolean }, options?: { threadId?: string }): Promise<void>
  /** true when the platform shows OGG/Opus as a voice bubble (Telegram, WhatsApp, Signal, Discord). */
  voiceBubbles?: boolean
}

/**
 * Before a reply's text goes to a chat: speaks it when the chat's `/voice` mode asks for it (`all`, or
 * `voice_only` and the prompt was a voice message) and the adapter can send audio. A failing provider
 * leaves the text-only answer and a logged warning; never throws.
 */
export async function speakReply(services: Pick<Services, 'get'>, registered: object | undefined, source: MessageSource & { threadId?: string }, prompt: string, answer: string, log?: Logger): Promise<void> {
  // A mode that cannot be read (the database away) is off: the text answer still goes out.
  const mode = await Promise.resolve(services.get<VoiceModes>(VOICE_MODES_SERVICE)?.get(source)).then(
    (value) => value ?? 'off',
    (error) => (log?.warn(`voice mode of ${source.platform} unreadable, sending text only: ${errorMessage(error)}`), 'off' as const),
  )
  if (mode === 'off' || (mode === 'voice_only' && !isVoicePrompt(prompt))) return
  const adapter = registered as AudioCapableAdapter | undefined
  const tts = services.get<TextToSpeech>(TTS_SERVICE)
  const chatId = source.chatId ?? source.userId
  if (!tts || !adapter?.sendAudio || !chatId) return
  try {
    const bubbles = adapter.voiceBubbles === true
    const spoken = await tts.speak(answer, { format: bubbles ? 'ogg_opus' : 'mp3' })
    if (!spoken.ok) return void log?.warn(`voice reply to ${source.platform} ${chatId} not spoken, sending text only: ${spoken.message}`)
    await adapter.sendAudio(chatId, { data: spoken.audio, mimeType: spoken.mimeType, filename: spoken.filename, voice: bubbles && spoken.mimeType === 'audio/ogg' }, source.threadId ? { threadId: source.threadId } : {})
  } catch (error) {
    log?.warn(`voice reply to ${source.platform} ${chatId} failed, sending text only: ${errorMessage(error)}`)
  }
}
