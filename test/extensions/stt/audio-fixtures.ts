// Tiny audio files for the format checks and engines: a real 16 kHz WAV (a sine tone), and headers
// of the other accepted containers (enough for the format check; the API fake never decodes them).
import { encodeWav } from '../../../extensions/stt/audio.ts'

export function toneWav(seconds = 0.5): Buffer {
  const samples = new Float32Array(Math.floor(16_000 * seconds))
  for (let i = 0; i < samples.length; i++) samples[i] = 0.3 * Math.sin((2 * Math.PI * 440 * i) / 16_000)
  return Buffer.from(encodeWav(samples))
}

export const OGG_HEADER = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(60)])
export const MP3_HEADER = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(60)])
export const M4A_HEADER = Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A '), Buffer.alloc(60)])
export const WEBM_HEADER = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(60)])
