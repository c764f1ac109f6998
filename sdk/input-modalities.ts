// Which inputs besides text a model reads, and media it does not read turned into a short text
// description. The model's own setting (`model.input_modalities`, a custom provider's
// `input_modalities`, carried on ModelClient.inputModalities) decides; else a small table of known
// model families; else text only (an unknown model is never sent media it may reject).

import type { ChatMessage, ContentPart, InputModality, MediaPart, ModelClient } from './model.ts'

export const INPUT_MODALITIES: readonly InputModality[] = ['text', 'image', 'audio']

/** Known families by model name (the last path segment, lower case): first match wins. */
const KNOWN: ReadonlyArray<[RegExp, readonly InputModality[]]> = [
  [/^gpt-4o(-mini)?-audio|^gpt-audio/, ['text', 'audio']],
  [/^gemini-(1\.5|2|3)/, ['text', 'image', 'audio']],
  [/^(gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|o1|o3|o4)/, ['text', 'image']],
  [/^claude-(3|sonnet-4|opus-4|haiku-4|[a-z]+-4)/, ['text', 'image']],
  [/^(pixtral|llava|qwen[\d.]*-?vl|grok-[\d.]+-?vision|llama-3\.2-\d+b-vision|llama-4)/, ['text', 'image']],
]

// Answers per model name: asked on every model call, and a process talks to a handful of models.
const known = new Map<string, readonly InputModality[] | null>()

/** The known-models table's answer for a model name, or undefined. */
export function knownInputModalities(model: string): readonly InputModality[] | undefined {
  let answer = known.get(model)
  if (answer === undefined) {
    const name = (model.split('/').pop() ?? '').toLowerCase()
    answer = KNOWN.find(([pattern]) => pattern.test(name))?.[1] ?? null
    if (known.size >= 256) known.clear()
    known.set(model, answer)
  }
  return answer ?? undefined
}

/** A configured `input_modalities` value checked: a list of known modalities (text implied), else undefined. */
export function parseInputModalities(value: unknown): InputModality[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => INPUT_MODALITIES.includes(v as InputModality))) return undefined
  return [...new Set<InputModality>(['text', ...(value as InputModality[])])]
}

/** What the client's model reads: its setting, else the known table, else text only. */
export function acceptedModalities(client: Pick<ModelClient, 'model' | 'inputModalities'>): readonly InputModality[] {
  return client.inputModalities ?? knownInputModalities(client.model) ?? ['text']
}

const modalityOf = (part: MediaPart): InputModality => (part.type === 'image_url' ? 'image' : 'audio')

/** One line saying what a media part was, for a model (or peer) that does not read it. */
export function describeMedia(part: MediaPart, reason?: string): string {
  const why = reason ? ` — ${reason}` : ''
  if (part.type === 'input_audio') return `[audio: ${audioFormatMimeType(part.input_audio.format)}, ${base64Bytes(part.input_audio.data)} bytes${why}]`
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url.url)
  return data ? `[image: ${data[1]}, ${base64Bytes(data[2]!)} bytes${why}]` : `[image: ${part.image_url.url.slice(0, 200)}${why}]`
}

/** The MIME type of an audio part's format. */
export const audioFormatMimeType = (format: 'wav' | 'mp3'): string => (format === 'wav' ? 'audio/wav' : 'audio/mpeg')

/** The chat-wire audio format for a MIME type (`audio/wav`, `audio/x-wav`, `audio/mpeg`, `audio/mp3`), or undefined. */
export function audioFormat(mimeType: string | undefined): 'wav' | 'mp3' | undefined {
  const type = (mimeType ?? '').split(';')[0]!.trim().toLowerCase()
  return ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'].includes(type) ? 'wav' : ['audio/mpeg', 'audio/mp3', 'audio/mpeg3'].includes(type) ? 'mp3' : undefined
}

/** Decoded size of base64 text (padding counted out). */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

/** Content with every part of a modality the model does not read replaced by its description. */
export function gateContent(content: ContentPart[], accepted: readonly InputModality[]): ContentPart[] {
  if (content.every((p) => p.type === 'text' || accepted.includes(modalityOf(p)))) return content
  return content.map((p) => (p.type === 'text' || accepted.includes(modalityOf(p)) ? p : { type: 'text', text: describeMedia(p, `this model does not accept ${modalityOf(p) === 'image' ? 'images' : 'audio'}`) }))
}

/** Tool results' media gated for the model (the stored transcript keeps them); other messages unchanged. */
export function gateToolMedia(messages: ChatMessage[], accepted: readonly InputModality[]): ChatMessage[] {
  if (INPUT_MODALITIES.every((m) => accepted.includes(m))) return messages
  return messages.map((m) => {
    if (m.role !== 'tool' || !Array.isArray(m.content)) return m
    const content = gateContent(m.content, accepted)
    return content === m.content ? m : { ...m, content }
  })
}
