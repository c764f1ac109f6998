// A small client for the free Edge read-aloud voice service, over its websocket protocol (the npm
// clients hard-code the endpoint; `tts.edge.endpoint` makes it configurable, and testable against a
// loopback fake). One connection per utterance: a `speech.config` text frame naming the output
// format, an `ssml` frame with the text, then binary frames (2-byte big-endian header length, a
// header block with `Path:audio`, the audio bytes) until a `Path:turn.end` text frame.

import { createHash, randomUUID } from 'node:crypto'
import type { SpeechFormat } from 'agent/sdk'

/** The public client token the browser sends; not a secret. */
const TRUSTED_CLIENT_TOKEN = '6A5AA1D4EAFF4E9FB37E23D68491D6F4'
const CHROMIUM_VERSION = '130.0.2849.68'
const TIMEOUT_MS = 30_000

const FORMATS: Record<SpeechFormat, { wire: string; mimeType: string; ext: string }> = {
  ogg_opus: { wire: 'ogg-24khz-16bit-mono-opus', mimeType: 'audio/ogg', ext: 'ogg' },
  mp3: { wire: 'audio-24khz-48kbitrate-mono-mp3', mimeType: 'audio/mpeg', ext: 'mp3' },
}

/** The service's anti-abuse token: SHA-256 of the Windows file time rounded to 5 minutes and the client token. */
function secMsGec(now = Date.now()): string {
  const seconds = Math.floor(now / 1000) + 11_644_473_600
  const ticks = BigInt(seconds - (seconds % 300)) * 10_000_000n
  return createHash('sha256').update(`${ticks}${TRUSTED_CLIENT_TOKEN}`, 'ascii').digest('hex').toUpperCase()
}

function xml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
}

function frame(headers: Record<string, string>, body: string): string {
  return `${Object.entries(headers).map(([k, v]) => `${k}:${v}`).join('\r\n')}\r\n\r\n${body}`
}

export async function edgeSpeak(endpoint: string, voice: string, text: string, format: SpeechFormat, signal?: AbortSignal): Promise<{ audio: Uint8Array; mimeType: string; filename: string }> {
  const { default: WebSocket } = await import('ws')
  const wire = FORMATS[format]
  const requestId = randomUUID().replaceAll('-', '')
  const url = new URL(endpoint)
  url.searchParams.set('TrustedClientToken', TRUSTED_CLIENT_TOKEN)
  url.searchParams.set('Sec-MS-GEC', secMsGec())
  url.searchParams.set('Sec-MS-GEC-Version', `1-${CHROMIUM_VERSION}`)
  url.searchParams.set('ConnectionId', requestId)
  const socket = new WebSocket(url, {
    headers: {
      Origin: 'chrome-extension://jdiccldimpdaibmpdkjnbmckianbfold',
      'User-Agent': `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${CHROMIUM_VERSION.split('.')[0]}.0.0.0 Safari/537.36 Edg/${CHROMIUM_VERSION}`,
      Pragma: 'no-cache',
      'Cache-Control': 'no-cache',
    },
    handshakeTimeout: TIMEOUT_MS,
  })
  const chunks: Buffer[] = []
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('the Edge voice service did not finish within 30 s')), TIMEOUT_MS)
    const onAbort = () => fail(new Error('cancelled'))
    signal?.addEventListener('abort', onAbort, { once: true })
    let settled = false
    function done(error?: Error) {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      socket.removeAllListeners()
      socket.on('error', () => undefined)
      socket.terminate()
      if (error) return reject(error)
      const audio = Buffer.concat(chunks)
      if (audio.length === 0) return reject(new Error('the Edge voice service sent no audio'))
      resolve({ audio, mimeType: wire.mimeType, filename: `speech.${wire.ext}` })
    }
    const fail = (error: Error) => done(error)
    socket.on('unexpected-response', (_req, res) => fail(new Error(`the Edge voice service refused the connection: HTTP ${res.statusCode}`)))
    socket.on('error', (error) => fail(new Error(`the Edge voice service failed: ${error.message}`)))
    socket.on('close', () => fail(new Error('the Edge voice service closed the connection before the end of the audio')))
    socket.on('open', () => {
      const timestamp = new Date().toString()
      socket.send(frame({ 'X-Timestamp': timestamp, 'Content-Type': 'application/json; charset=utf-8', Path: 'speech.config' },
        JSON.stringify({ context: { synthesis: { audio: { metadataoptions: { sentenceBoundaryEnabled: 'false', wordBoundaryEnabled: 'false' }, outputFormat: wire.wire } } } })))
      const lang = voice.split('-').slice(0, 2).join('-')
      const ssml = `<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xmlns:mstts='https://www.w3.org/2001/mstts' xml:lang='${lang}'><voice name='${voice}'><prosody pitch='+0Hz' rate='+0%' volume='+0%'>${xml(text)}</prosody></voice></speak>`
      socket.send(frame({ 'X-RequestId': requestId, 'Content-Type': 'application/ssml+xml', 'X-Timestamp': `${timestamp}Z`, Path: 'ssml' }, ssml))
    })
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) {
        if (/^Path:turn\.end\r?$/m.test(data.toString('utf8'))) done()
        return
      }
      if (data.length < 2) return
      const headerLength = data.readUInt16BE(0)
      const header = data.subarray(2, 2 + headerLength).toString('utf8')
      if (/^Path:audio\r?$/m.test(header)) chunks.push(data.subarray(2 + headerLength))
    })
  })
}
