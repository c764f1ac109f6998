#!/usr/bin/env node
// The WhatsApp bridge process, started by the whatsapp adapter (never by hand in normal use): it
// keeps a WhatsApp Web session (socket.mjs) and serves the local protocol (server.mjs) on 127.0.0.1
// with the token from its environment. It prints one line on stdout once listening,
// {"event":"listening","port":N}; everything else goes to stderr (the adapter's log file).
// WHATSAPP_BRIDGE_SETUP=1: pairing only: the QR code is drawn in the terminal, and the process
// exits 0 once the phone has linked it.
//
// Environment: WHATSAPP_BRIDGE_TOKEN, WHATSAPP_AUTH_DIR, WHATSAPP_MODE (self-chat | bot),
// WHATSAPP_REPLY_PREFIX (the resolved header; empty: none), WHATSAPP_MEDIA_DIR (where incoming
// media are saved; unset: not downloaded), WHATSAPP_BRIDGE_VERBOSE, and
// WHATSAPP_WEB_SOCKET_URL (another WhatsApp Web address: a test points it at loopback).

import { createBridgeCore } from './core.mjs'
import { startBridgeServer } from './server.mjs'
import { bridgeLogger, createSocket } from './socket.mjs'

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
  const verbose = env.WHATSAPP_BRIDGE_VERBOSE === '1'
  let attempt = 0
  let sock
  let baileys
  const download = (raw) => baileys.downloadMediaMessage(raw, 'buffer', {}, { logger: bridgeLogger(log, verbose), reuploadRequest: sock.updateMediaMessage })
  const core = createBridgeCore({ mode, prefix: env.WHATSAPP_REPLY_PREFIX ?? '', log, verbose, ...(env.WHATSAPP_MEDIA_DIR ? { mediaDir: env.WHATSAPP_MEDIA_DIR, download } : {}) })

  const connect = async () => {
    ;({ sock, baileys } = await createSocket({
      authDir,
      log,
      verbose,
      ...(env.WHATSAPP_WEB_SOCKET_URL ? { waWebSocketUrl: env.WHATSAPP_WEB_SOCKET_URL } : {}),
      events: {
        onQr: () => {
          core.setStatus('needs_pairing')
          log('error: this WhatsApp session is not linked: run `agent gateway whatsapp setup`')
          sock.end(undefined)
          process.exit(3)
        },
        onOpen: (who) => {
          core.opened(who)
          attempt = 0
          log(`info: connected to WhatsApp (${mode} mode)`)
        },
        onClose: ({ statusCode, loggedOut }) => {
          if (loggedOut) {
            core.setStatus('logged_out')
            log('error: WhatsApp logged this device out: run `agent gateway whatsapp setup` again')
            process.exit(3)
          }
          core.setStatus('connecting')
          const delay = Math.min(60_000, 1000 * 2 ** attempt++) * (0.5 + Math.random() / 2)
          log(`warn: WhatsApp connection closed (${statusCode ?? 'no status'}); reconnecting in ${Math.round(delay / 1000)} s`)
          setTimeout(() => connect().catch((error) => log(`error: reconnect failed: ${error.message}`)), delay)
        },
        onMessages: (messages) => core.receive(messages).catch((error) => log(`error: incoming messages failed: ${error.message}`)),
      },
    }))
    core.attach(sock)
  }

  const server = await startBridgeServer({ token: env.WHATSAPP_BRIDGE_TOKEN, handlers: core.handlers, queue: core.queue, log })
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
