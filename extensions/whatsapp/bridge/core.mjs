// The bridge between a WhatsApp Web socket and the protocol server, without the socket's library:
// incoming messages through the filter into the receive queue, and the protocol's send, typing,
// edit and media turned into socket calls (the reply header added where it belongs, sent ids kept
// for the echo guard). bridge.mjs attaches a baileys socket; the tests attach a simulated one.

import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { mediaFileName, mediaOf, outgoingText, readIncoming, SentIds } from './filter.mjs'
import { MessageQueue } from './server.mjs'

/** The content baileys sends for a file, by its type. */
export function mediaContent(data, media, caption) {
  const type = media.mimetype ?? 'application/octet-stream'
  if (type.startsWith('image/')) return { image: data, caption }
  if (type.startsWith('video/')) return { video: data, caption }
  if (type.startsWith('audio/')) return { audio: data, mimetype: type }
  return { document: data, mimetype: type, fileName: media.fileName ?? 'file', caption }
}

const MAX_MEDIA_BYTES = 25 * 1024 * 1024

/**
 * options: { mode: 'self-chat' | 'bot', prefix, log(line), verbose, mediaDir, download(raw) → Buffer }:
 * with mediaDir and download, an incoming media part is saved there and its note says where.
 */
export function createBridgeCore({ mode, prefix, log = () => {}, verbose = false, mediaDir, download }) {
  const sent = new SentIds()
  const queue = new MessageQueue(log)
  let sock
  let me = {}
  let status = 'connecting'
  const socket = () => {
    if (!sock || status !== 'open') throw Object.assign(new Error('not connected to WhatsApp'), { status: 503 })
    return sock
  }
  const header = (text, chatId) => outgoingText(text, chatId, { mode, prefix, me })
  /** Saves a media part and notes where in its line of the text (or why not). */
  async function saveMedia(raw, media, text) {
    const note = (detail) => text.replace(new RegExp(`^(\\[${media.kind}[^\\n]*)\\]$`, 'm'), `$1, ${detail}]`)
    if ((media.size ?? 0) > MAX_MEDIA_BYTES) return note('not downloaded: larger than 25 MB')
    try {
      const data = await download(raw)
      if (data.length > MAX_MEDIA_BYTES) return note('not downloaded: larger than 25 MB')
      await mkdir(mediaDir, { recursive: true, mode: 0o700 })
      const path = join(mediaDir, mediaFileName(raw.key.id, media.mimetype))
      await writeFile(path, data, { mode: 0o600 })
      return note(`saved at ${path}`)
    } catch (error) {
      log(`warn: downloading the ${media.kind} of ${raw?.key?.id} failed: ${error?.message ?? error}`)
      return note('could not be downloaded')
    }
  }
  const remember = (result) => {
    const id = result?.key?.id
    sent.remember(id)
    return { id }
  }
  return {
    queue,
    sent,
    /** The socket in use (a new one after each reconnect). */
    attach(next) {
      sock = next
    },
    opened(who) {
      me = who ?? {}
      status = 'open'
    },
    setStatus(next) {
      status = next
    },
    get status() {
      return status
    },
    /** New messages from the socket: the input ones are queued (media saved first). Resolves with each one's verdict. */
    async receive(messages) {
      const verdicts = []
      for (const raw of messages) {
        const read = readIncoming(raw, { mode, prefix, me, sent })
        if (!read.ok) {
          if (verbose) log(`debug: ignored ${raw?.key?.id}: ${read.reason}`)
          verdicts.push({ ok: false, reason: read.reason })
          continue
        }
        const media = mediaDir && download ? mediaOf(raw.message) : undefined
        if (media) read.message.text = await saveMedia(raw, media, read.message.text)
        queue.push(read.message)
        verdicts.push({ ok: true })
      }
      return verdicts
    },
    handlers: {
      health: () => ({ status, mode, me: me.id ? { id: me.id, ...(me.lid ? { lid: me.lid } : {}) } : null }),
      send: async (chatId, text) => remember(await socket().sendMessage(chatId, { text: header(text, chatId) })),
      typing: async (chatId, presence) => void (await socket().sendPresenceUpdate(presence, chatId)),
      // An edit comes back as a message of its own: its id is remembered too.
      edit: async (chatId, id, text) => void remember(await socket().sendMessage(chatId, { text: header(text, chatId), edit: { remoteJid: chatId, fromMe: true, id } })),
      media: async (chatId, media) => {
        const data = await readFile(media.path)
        return remember(await socket().sendMessage(chatId, mediaContent(data, media, media.caption ? header(media.caption, chatId) : undefined)))
      },
    },
  }
}
