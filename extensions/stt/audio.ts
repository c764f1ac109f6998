// The audio an engine gets: the format recognised from its first bytes (a MIME type or a file name can
// lie), the 25 MB cap, and for the local engines 16 kHz mono PCM (whisper.cpp's input) decoded in
// process: WAV is read here, OGG/Opus goes through a wasm decoder, the rest through the whisper
// binding's decoder. The `command` engine gets that PCM as a 16-bit WAV file.

import { MAX_AUDIO_BYTES, type AudioInput } from 'agent/sdk'

export type AudioFormat = 'ogg' | 'mp3' | 'm4a' | 'wav' | 'webm'

export const SAMPLE_RATE = 16_000

/** The container by its magic bytes, or undefined when it is none of the accepted ones. */
export function sniffFormat(data: Uint8Array): AudioFormat | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...data.subarray(from, to))
  if (ascii(0, 4) === 'OggS') return 'ogg'
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav'
  if (ascii(4, 8) === 'ftyp') return 'm4a'
  if (data[0] === 0x1a && data[1] === 0x45 && data[2] === 0xdf && data[3] === 0xa3) return 'webm'
  if (ascii(0, 3) === 'ID3' || (data[0] === 0xff && ((data[1] ?? 0) & 0xe0) === 0xe0)) return 'mp3'
  return undefined
}

/** The format, or the sentence telling the user why the audio is refused. */
export function checkAudio(input: AudioInput): { format: AudioFormat } | { error: string } {
  if (input.data.byteLength === 0) return { error: 'the audio is empty' }
  if (input.data.byteLength > MAX_AUDIO_BYTES) return { error: `the audio is ${(input.data.byteLength / 1048576).toFixed(1)} MB; at most 25 MB can be transcribed` }
  const format = sniffFormat(input.data)
  if (!format) return { error: `unsupported audio format${input.mimeType ? ` (${input.mimeType})` : ''}: send ogg/opus, mp3, m4a, wav or webm` }
  return { format }
}

type WhisperBinding = { decodeAudioAsync(buf: Uint8Array, filename?: string | null): Promise<Float32Array> }

/** The whisper binding, or why it cannot load here (no prebuilt binary for this platform). */
export async function loadWhisperBinding(): Promise<{ binding: WhisperBinding } | { error: string }> {
  try {
    const mod = (await import('@napi-rs/whisper')) as unknown as WhisperBinding & { default?: WhisperBinding }
    return { binding: typeof mod.decodeAudioAsync === 'function' ? mod : mod.default! }
  } catch (error) {
    return { error: `the whisper.cpp binding (@napi-rs/whisper) does not load on ${process.platform}-${process.arch}: ${(error as Error).message.split('\n')[0]}` }
  }
}

/**
 * 16 kHz mono samples in [-1, 1]. OGG goes to the wasm Opus decoder first: the binding's bundled
 * decoder has no Opus codec (voice notes are Opus); it takes Vorbis, MP3, AAC and WAV. Opus inside
 * WebM has no local decoder: that audio needs the API provider.
 */
export async function decodePcm(data: Uint8Array, format: AudioFormat): Promise<Float32Array> {
  if (format === 'wav') return readWav(data)
  if (format === 'ogg') {
    const opus = await decodeOggOpus(data).catch(() => undefined)
    if (opus?.length) return opus
  }
  const whisper = await loadWhisperBinding()
  if (!('binding' in whisper)) throw new Error(`${format} audio needs the whisper binding to decode (${whisper.error})`)
  try {
    return await whisper.binding.decodeAudioAsync(data, `audio.${format}`)
  } catch (error) {
    throw new Error(`this ${format} audio cannot be decoded on this machine (${(error as Error).message.replace(/^Decode audio into Float32Array failed: /, '')})`)
  }
}

async function decodeOggOpus(data: Uint8Array): Promise<Float32Array> {
  const { OggOpusDecoder } = await import('ogg-opus-decoder')
  const decoder = new OggOpusDecoder()
  await decoder.ready
  try {
    const { channelData, sampleRate } = await decoder.decodeFile(data)
    return resample(mixDown(channelData), sampleRate)
  } finally {
    decoder.free()
  }
}

/** PCM WAV (8/16/24/32-bit integer or 32-bit float) to 16 kHz mono. */
export function readWav(data: Uint8Array): Float32Array {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  let offset = 12
  let fmt: { tag: number; channels: number; rate: number; bits: number } | undefined
  while (offset + 8 <= data.byteLength) {
    const id = String.fromCharCode(...data.subarray(offset, offset + 4))
    const size = view.getUint32(offset + 4, true)
    const body = offset + 8
    if (id === 'fmt ') fmt = { tag: view.getUint16(body, true), channels: view.getUint16(body + 2, true), rate: view.getUint32(body + 4, true), bits: view.getUint16(body + 14, true) }
    if (id === 'data' && fmt) {
      const bytes = fmt.bits / 8
      const end = Math.min(data.byteLength, body + (size || data.byteLength))
      const frames = Math.floor((end - body) / (bytes * fmt.channels))
      const channels = Array.from({ length: fmt.channels }, () => new Float32Array(frames))
      for (let i = 0; i < frames; i++) {
        for (let c = 0; c < fmt.channels; c++) channels[c]![i] = sample(view, body + (i * fmt.channels + c) * bytes, fmt.bits, fmt.tag === 3)
      }
      return resample(mixDown(channels), fmt.rate)
    }
    offset = body + size + (size % 2)
  }
  throw new Error('the WAV file has no audio data')
}

function sample(view: DataView, at: number, bits: number, float: boolean): number {
  if (float) return view.getFloat32(at, true)
  if (bits === 8) return (view.getUint8(at) - 128) / 128
  if (bits === 16) return view.getInt16(at, true) / 32768
  if (bits === 24) return ((view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16)) / 8388608)
  return view.getInt32(at, true) / 2147483648
}

function mixDown(channels: Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0]!
  const out = new Float32Array(channels[0]?.length ?? 0)
  for (const channel of channels) for (let i = 0; i < out.length; i++) out[i]! += channel[i]! / channels.length
  return out
}

/** Linear interpolation: plenty for speech recognition. */
function resample(samples: Float32Array, rate: number): Float32Array {
  if (rate === SAMPLE_RATE) return samples
  const out = new Float32Array(Math.floor((samples.length * SAMPLE_RATE) / rate))
  const step = rate / SAMPLE_RATE
  for (let i = 0; i < out.length; i++) {
    const at = i * step
    const low = Math.floor(at)
    const high = Math.min(low + 1, samples.length - 1)
    out[i] = samples[low]! + (samples[high]! - samples[low]!) * (at - low)
  }
  return out
}

/** 16 kHz mono 16-bit PCM WAV, what pocketsphinx and most command-line recognisers read. */
export function encodeWav(samples: Float32Array): Uint8Array {
  const out = new Uint8Array(44 + samples.length * 2)
  const view = new DataView(out.buffer)
  const text = (at: number, s: string) => [...s].forEach((ch, i) => view.setUint8(at + i, ch.charCodeAt(0)))
  text(0, 'RIFF')
  view.setUint32(4, 36 + samples.length * 2, true)
  text(8, 'WAVE')
  text(12, 'fmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, 1, true)
  view.setUint32(24, SAMPLE_RATE, true)
  view.setUint32(28, SAMPLE_RATE * 2, true)
  view.setUint16(32, 2, true)
  view.setUint16(34, 16, true)
  text(36, 'data')
  view.setUint32(40, samples.length * 2, true)
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, Math.max(-1, Math.min(1, samples[i]!)) * 32767, true)
  return out
}
