#!/usr/bin/env node
// A bridge program for tests, started by the whatsapp adapter exactly as it starts the real one
// (same spawn, environment, token, stdout handshake, log). It is the real bridge with its WhatsApp
// socket replaced: the real protocol server (server.mjs) and the real message rules (filter.mjs)
// over an in-memory account. The account is read from creds.json in WHATSAPP_AUTH_DIR (`me`, as
// baileys writes it). Test-only routes, behind the same token: POST /test/inbound (raw WhatsApp Web
// messages, through the real filter), /test/sent (what the socket sent), /test/env (the
// environment this process received, and its pid). A send to the owner's own chat comes back as a
// fromMe message with the same id, as WhatsApp echoes it. Sent texts are also appended to
// fake-sent.jsonl beside the auth folder (read across restarts); fake-bridge.json there says where
// it listens, with its token (for tests of a whole `agent gateway run`).

import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { isOwnChat, outgoingText, readIncoming, SentIds } from '../../../extensions/whatsapp/bridge/filter.mjs'
import { MessageQueue, startBridgeServer } from '../../../extensions/whatsapp/bridge/server.mjs'

const env = process.env
const log = (line) => process.stderr.write(`fake-bridge ${line}\n`)
const creds = JSON.parse(readFileSync(join(env.WHATSAPP_AUTH_DIR, 'creds.json'), 'utf8'))
const me = creds.me ?? {}
const mode = env.WHATSAPP_MODE === 'bot' ? 'bot' : 'self-chat'
const prefix = env.WHATSAPP_REPLY_PREFIX ?? ''
const sent = new SentIds()
const queue = new MessageQueue(log)
const outbox = []
const ignored = []
let nextId = 1

function inbound(raw) {
  const read = readIncoming(raw, { mode, prefix, me, sent })
  if (read.ok) queue.push(read.message)
  else ignored.push({ id: raw?.key?.id, reason: read.reason })
  return read.ok ? { ok: true } : { ok: false, reason: read.reason }
}

const handlers = {
  health: () => ({ status: 'open', mode, me }),
  async send(chatId, text) {
    const id = `FAKE${nextId++}`
    const body = outgoingText(text, chatId, { mode, prefix, me })
    outbox.push({ chatId, text: body, id })
    // Kept beside the session too, so a test reads what was sent across bridge restarts.
    appendFileSync(join(dirname(env.WHATSAPP_AUTH_DIR), 'fake-sent.jsonl'), `${JSON.stringify({ chatId, text: body, id })}\n`)
    sent.remember(id)
    // WhatsApp shows our own message in the owner's chat on every device: it comes back to us.
    if (isOwnChat(chatId, me)) setTimeout(() => inbound({ key: { remoteJid: chatId, fromMe: true, id }, message: { conversation: body }, messageTimestamp: Math.floor(Date.now() / 1000) }), 5)
    return { id }
  },
  async typing(chatId, state) {
    outbox.push({ chatId, typing: state })
  },
  async edit(chatId, id, text) {
    outbox.push({ chatId, edit: id, text: outgoingText(text, chatId, { mode, prefix, me }) })
  },
  async media(chatId, media) {
    const id = `FAKE${nextId++}`
    outbox.push({ chatId, media: media.path, id })
    return { id }
  },
}

const routes = {
  '/test/inbound': (body) => (Array.isArray(body.messages) ? body.messages.map(inbound) : [inbound(body.message)]),
  '/test/sent': () => ({ sent: outbox, ignored }),
  '/test/env': () => ({ pid: process.pid, env: Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'PATH')) }),
}

const server = await startBridgeServer({ token: env.WHATSAPP_BRIDGE_TOKEN, handlers, queue, routes, log })
// For tests that drive a whole `agent gateway run`: where this bridge listens, with its token.
writeFileSync(join(dirname(env.WHATSAPP_AUTH_DIR), 'fake-bridge.json'), JSON.stringify({ port: server.port, token: env.WHATSAPP_BRIDGE_TOKEN, pid: process.pid }), { mode: 0o600 })
process.stdout.write(`${JSON.stringify({ event: 'listening', port: server.port })}\n`)
log(`listening (${mode} mode)`)
process.on('SIGTERM', async () => {
  await server.close()
  process.exit(0)
})
