#!/usr/bin/env node
// The WhatsApp bridge process, started by the whatsapp adapter (never by hand in normal use): it
// keeps a WhatsApp Web session (socket.mjs) and serves the local protocol (server.mjs) on 127.0.0.1
// with the token from its environment. It prints one line on stdout once listening,
// {"event":"listening","port":N}; everything else goes to stderr (the adapter's log file).
// WHATSAPP_BRIDGE_SETUP=1: pairing only: the QR code is drawn in the terminal, and the process
// exits 0 once the phone has linked it.
//
// Environment: WHATSAPP_BRIDGE_TOKEN, WHATSAPP_AUTH_DIR, WHATSAPP_MODE (self-chat | bot),
// WHATSAPP_REPLY_PREFIX (the resolved header; empty: none), WHATSAPP_BRIDGE_VERBOSE, and
// WHATSAPP_WEB_SOCKET_URL (another WhatsApp Web address: a test points it at loopback).

import { readFile } from 'node:fs/promises'
import { outgoingText, readIncoming, SentIds } from './filter.mjs'
import { MessageQueue, startBridgeServer } from './server.mjs'
import { createSocket } from './socket.mjs'

const env = process.env
const log = (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`)
const authDir = env.WHATSAPP_AUTH_DIR
if (!authDir) {
  log('error: WHATSAPP_AUTH_DIR is not set')
  process.exit(2)
}

if (env.WHATSAPP_BRIDGE_SETUP === '1') await pair()
else await serve()

async function pair() {
  const { default: qrcode } = await import('qrcode-terminal')
  let sock
  const timer = setTimeout(() => {
    log('error: not linked within 5 minutes')
    process.exit(1)
  }, 5 * 60_000)
  const connect = async () => {
    ;({ sock } = await createSocket({
      authDir,
      log,
      events: {
        onQr: (qr) => {
          process.stdout.write('\nScan this code with WhatsApp on your phone: Settings → Linked devices → Link a device\n\n')
          qrcode.generate(qr, { small: true }, (code) => process.stdout.write(`${code}\n`))
        },
        onOpen: (me) => {
          clearTimeout(timer)
          process.stdout.write(`Linked as ${me.id ?? 'your account'}. The gateway can use WhatsApp now.\n`)
          // Give the credentials a moment to reach the disk before leaving.
          setTimeout(() => process.exit(0), 1500)
        },
        // WhatsApp closes the first connection after pairing ("restart required"): connect again.
        onClose: ({ loggedOut }) => {
          if (loggedOut) {
            log('error: WhatsApp refused the link (logged out); run setup again')
            process.exit(1)
          }
          setTimeout(connect, 1000)
        },
      },
    }))
  }
  await connect()
  process.on('SIGINT', () => {
    sock?.end(undefined)
    process.exit(130)
  })
}

async function serve() {
  const mode = env.WHATSAPP_MODE === 'bot' ? 'bot' : 'self-chat'
  const prefix = env.WHATSAPP_REPLY_PREFIX ?? ''
  const sent = new SentIds()
  const queue = new MessageQueue(log)
  let me = {}
  let state = 'connecting'
  let sock
  let attempt = 0

  const connect = async () => {
    ;({ sock } = await createSocket({
      authDir,
      log,
      verbose: env.WHATSAPP_BRIDGE_VERBOSE === '1',
      ...(env.WHATSAPP_WEB_SOCKET_URL ? { waWebSocketUrl: env.WHATSAPP_WEB_SOCKET_URL } : {}),
      events: {
        onQr: () => {
          state = 'needs_pairing'
          log('error: this WhatsApp session is not linked: run `agent gateway whatsapp setup`')
          sock.end(undefined)
          process.exit(3)
        },
        onOpen: (who) => {
          me = who
          state = 'open'
          attempt = 0
          log(`info: connected to WhatsApp (${mode} mode)`)
        },
        onClose: ({ statusCode, loggedOut }) => {
          if (loggedOut) {
            state = 'logged_out'
            log('error: WhatsApp logged this device out: run `agent gateway whatsapp setup` again')
            process.exit(3)
          }
          state = 'connecting'
          const delay = Math.min(60_000, 1000 * 2 ** attempt++) * (0.5 + Math.random() / 2)
          log(`warn: WhatsApp connection closed (${statusCode ?? 'no status'}); reconnecting in ${Math.round(delay / 1000)} s`)
          setTimeout(() => connect().catch((error) => log(`error: reconnect failed: ${error.message}`)), delay)
        },
        onMessages: (messages) => {
          for (const raw of messages) {
            const read = readIncoming(raw, { mode, prefix, me, sent })
            if (read.ok) queue.push(read.message)
            else if (env.WHATSAPP_BRIDGE_VERBOSE === '1') log(`debug: ignored ${raw?.key?.id}: ${read.reason}`)
          }
        },
      },
    }))
  }

  const remember = (result) => {
    const id = result?.key?.id
    sent.remember(id)
    return { id }
  }
  const handlers = {
    health: () => ({ status: state, mode, me: me.id ? { id: me.id, ...(me.lid ? { lid: me.lid } : {}) } : null }),
    send: async (chatId, text) => remember(await sock.sendMessage(chatId, { text: outgoingText(text, chatId, { mode, prefix, me }) })),
    typing: async (chatId, presence) => void (await sock.sendPresenceUpdate(presence, chatId)),
    edit: async (chatId, id, text) => void (await sock.sendMessage(chatId, { text: outgoingText(text, chatId, { mode, prefix, me }), edit: { remoteJid: chatId, fromMe: true, id } })),
    media: async (chatId, media) => {
      const data = await readFile(media.path)
      const type = media.mimetype ?? 'application/octet-stream'
      const caption = media.caption ? outgoingText(media.caption, chatId, { mode, prefix, me }) : undefined
      const content = type.startsWith('image/') ? { image: data, caption } : type.startsWith('video/') ? { video: data, caption } : type.startsWith('audio/') ? { audio: data, mimetype: type } : { document: data, mimetype: type, fileName: media.fileName ?? 'file', caption }
      return remember(await sock.sendMessage(chatId, content))
    },
  }
  const server = await startBridgeServer({ token: env.WHATSAPP_BRIDGE_TOKEN, handlers, queue, log })
  process.stdout.write(`${JSON.stringify({ event: 'listening', port: server.port })}\n`)
  await connect()
  const stop = async () => {
    sock?.end(undefined)
    await server.close()
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}
