// The bridge between a WhatsApp Web socket and the protocol server, without the socket's library:
// incoming messages through the filter into the receive queue, and the protocol's send, typing,
// edit and media turned into socket calls (the reply header added where it belongs, sent ids kept
// for the echo guard). bridge.mjs attaches a baileys socket; the tests attach a simulated one.

import { readFile } from 'node:fs/promises'
import { outgoingText, readIncoming, SentIds } from './filter.mjs'
import { MessageQueue } from './server.mjs'

/** The content baileys sends for a file, by its type. */
export function mediaContent(data, media, caption) {
  const type = media.mimetype ?? 'application/octet-stream'
  if (type.startsWith('image/')) return { image: data, caption }
  if (type.startsWith('video/')) return { video: data, caption }
  if (type.startsWith('audio/')) return { audio: data, mimetype: type }
  return { document: data, mimetype: type, fileName: media.fileName ?? 'file', caption }
}

/** options: { mode: 'self-chat' | 'bot', prefix, log(line), verbose } */
export function createBridgeCore({ mode, prefix, log = () => {}, verbose = false }) {
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
    /** New messages from the socket: the input ones are queued. Returns each one's verdict. */
    receive(messages) {
      return messages.map((raw) => {
        const read = readIncoming(raw, { mode, prefix, me, sent })
        if (read.ok) queue.push(read.message)
        else if (verbose) log(`debug: ignored ${raw?.key?.id}: ${read.reason}`)
        return read.ok ? { ok: true } : { ok: false, reason: read.reason }
      })
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
