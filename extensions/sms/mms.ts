// MMS voice notes and audio: the webhook's `MediaUrl<i>` / `MediaContentType<i>` fields (at most
// `NumMedia`, 10 read). Audio is fetched from the provider's API host only (HTTP Basic, like the REST
// calls; a URL on any other host is never requested, so a forged webhook cannot point the adapter
// elsewhere) and transcribed through the SDK's transcribeAudio before the agent reads it.

import { isAudioAttachment, MAX_AUDIO_BYTES, type InboundAudio } from 'agent/sdk'
import type { SmsAccount } from './rest.ts'

const MAX_MEDIA = 10

export interface MmsMedia {
  url: string
  mimeType: string
}

/** The audio media of an inbound MMS. */
export function audioMedia(params: URLSearchParams): MmsMedia[] {
  const count = Math.min(Number(params.get('NumMedia') ?? 0) || 0, MAX_MEDIA)
  const out: MmsMedia[] = []
  for (let i = 0; i < count; i++) {
    const url = params.get(`MediaUrl${i}`)
    const mimeType = params.get(`MediaContentType${i}`) ?? ''
    if (url && isAudioAttachment(mimeType)) out.push({ url, mimeType })
  }
  return out
}

/** An InboundAudio that downloads from the account's API host, or refuses another host. */
export function mmsAudio(media: MmsMedia, account: SmsAccount, index: number): InboundAudio {
  return {
    filename: `mms-audio-${index + 1}`,
    mimeType: media.mimeType,
    async fetch(signal) {
      let url: URL
      try {
        url = new URL(media.url)
      } catch {
        throw new Error('the media URL is not a URL')
      }
      if (url.origin !== new URL(account.baseUrl).origin) throw new Error(`the media is not on ${new URL(account.baseUrl).host}`)
      // fetch drops the Authorization header when the API redirects to its storage on another origin.
      const response = await fetch(url, {
        headers: { authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}` },
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(60_000)]) : AbortSignal.timeout(60_000),
      })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      const data = new Uint8Array(await response.arrayBuffer())
      if (data.byteLength > MAX_AUDIO_BYTES) throw new Error('larger than 25 MB')
      return data
    },
  }
}
