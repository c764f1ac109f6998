#!/usr/bin/env node
// A bridge program for tests, started by the whatsapp adapter exactly as it starts the real one
// (same spawn, environment, token, stdout handshake, log). It is the real bridge (bridge/core.mjs,
// server.mjs, filter.mjs) with a simulated WhatsApp socket instead of baileys: the account is read
// from creds.json in WHATSAPP_AUTH_DIR (`me`, as baileys writes it), and a message sent to the
// owner's own chat comes back as a fromMe message with the same id, as WhatsApp echoes it.
// Test-only routes, behind the same token: POST /test/inbound (raw WhatsApp Web messages, through
// the real filter), /test/sent (what the socket sent, what the filter ignored), /test/env (the
// environment this process received, and its pid). Beside the auth folder: fake-sent.jsonl (every
// text sent, across restarts) and fake-bridge.json (where it listens, with its token, for tests of
// a whole `agent gateway run`).

import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createBridgeCore } from '../../../extensions/whatsapp/bridge/core.mjs'
import { isOwnChat } from '../../../extensions/whatsapp/bridge/filter.mjs'
import { startBridgeServer } from '../../../extensions/whatsapp/bridge/server.mjs'

const env = process.env
const log = (line) => process.stderr.write(`fake-bridge ${line}\n`)
const beside = (name) => join(dirname(env.WHATSAPP_AUTH_DIR), name)
const me = JSON.parse(readFileSync(join(env.WHATSAPP_AUTH_DIR, 'creds.json'), 'utf8')).me ?? {}
const mode = env.WHATSAPP_MODE === 'bot' ? 'bot' : 'self-chat'
// The simulated WhatsApp serves every media part as the text `media of <message id>`.
const download = async (raw) => Buffer.from(`media of ${raw.key.id}`)
const core = createBridgeCore({ mode, prefix: env.WHATSAPP_REPLY_PREFIX ?? '', log, ...(env.WHATSAPP_MEDIA_DIR ? { mediaDir: env.WHATSAPP_MEDIA_DIR, download } : {}) })
const outbox = []
const ignored = []
let nextId = 1

async function inbound(raws) {
  const verdicts = await core.receive(raws)
  verdicts.forEach((v, i) => !v.ok && ignored.push({ id: raws[i]?.key?.id, reason: v.reason }))
  return verdicts
}

core.attach({
  async sendMessage(chatId, content) {
    const id = `FAKE${nextId++}`
    const text = content.text ?? content.caption
    outbox.push({ chatId, id, ...(content.text !== undefined ? { text } : { media: Object.keys(content)[0] }), ...(content.edit ? { edit: content.edit.id } : {}) })
    if (content.text !== undefined) appendFileSync(beside('fake-sent.jsonl'), `${JSON.stringify({ chatId, text, id })}\n`)
    if (isOwnChat(chatId, me) && text !== undefined) setTimeout(() => void inbound([{ key: { remoteJid: chatId, fromMe: true, id }, message: { conversation: text }, messageTimestamp: Math.floor(Date.now() / 1000) }]), 5)
    return { key: { remoteJid: chatId, fromMe: true, id } }
  },
  async sendPresenceUpdate(state, chatId) {
    outbox.push({ chatId, typing: state })
  },
})
core.opened(me)

const routes = {
  '/test/inbound': (body) => inbound(Array.isArray(body.messages) ? body.messages : [body.message]),
  '/test/sent': () => ({ sent: outbox, ignored }),
  '/test/env': () => ({ pid: process.pid, env: Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'PATH')) }),
}

const server = await startBridgeServer({ token: env.WHATSAPP_BRIDGE_TOKEN, handlers: core.handlers, queue: core.queue, routes, log })
writeFileSync(beside('fake-bridge.json'), JSON.stringify({ port: server.port, token: env.WHATSAPP_BRIDGE_TOKEN, pid: process.pid }), { mode: 0o600 })
process.stdout.write(`${JSON.stringify({ event: 'listening', port: server.port })}\n`)
log(`listening (${mode} mode)`)
process.on('SIGTERM', async () => {
  await server.close()
  process.exit(0)
})
