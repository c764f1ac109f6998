// The real bridge's library: baileys loads from the bridge's own package (installed by `npm ci` in
// extensions/whatsapp/bridge, as .ci/run does) and the bridge builds its socket with a fresh auth
// state, pointed at a loopback address that refuses the websocket, so nothing reaches WhatsApp.
// The real bridge program, spawned as the adapter spawns it and pointed at the same loopback address:
// it listens with its token, reports that it is connecting, and stops on SIGTERM.
// Skipped, saying why, when the bridge's node_modules are absent.

import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { spawnBridge } from '../../../extensions/whatsapp/bridge-process.ts'
import { BRIDGE_DIR, bridgeInstalled, BUNDLED_BRIDGE } from '../../../extensions/whatsapp/settings.ts'

const reason = bridgeInstalled() ? false : `the bridge's dependencies are not installed (run \`npm ci\` in ${BRIDGE_DIR})`

/** A loopback server that drops every websocket upgrade (the socket's websocket fails there), and a temporary folder. */
async function refusingServer(t: TestContext) {
  const upgrades: string[] = []
  const server = createServer((_req, res) => res.writeHead(404).end())
  server.on('upgrade', (req, socket) => {
    upgrades.push(req.url ?? '')
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const dir = mkdtempSync(join(tmpdir(), 'agent-whatsapp-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return { upgrades, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/chat`, dir }
}

test('the bridge builds its baileys socket without reaching WhatsApp', { skip: reason }, async (t) => {
  const { upgrades, url, dir: authDir } = await refusingServer(t)

  const { createSocket } = await import('../../../extensions/whatsapp/bridge/socket.mjs')
  const closes: Array<{ statusCode?: number; loggedOut: boolean }> = []
  const lines: string[] = []
  const { sock, baileys } = await createSocket({
    authDir,
    log: (line: string) => lines.push(line),
    waWebSocketUrl: url,
    events: { onClose: (close: { statusCode?: number; loggedOut: boolean }) => closes.push(close) },
  })
  try {
    assert.equal(typeof baileys.makeWASocket, 'function')
    assert.equal(typeof sock.sendMessage, 'function')
    assert.equal(typeof sock.sendPresenceUpdate, 'function')
    assert.equal(typeof sock.ev.on, 'function')
    // A fresh auth state: new credentials, not registered (pairing would show a QR code).
    assert.equal(sock.authState.creds.registered, false)
    const deadline = Date.now() + 10_000
    // Until the refused websocket has closed (ending a connecting one would reject in the background).
    while ((upgrades.length === 0 || sock.ws.isConnecting) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    assert.deepEqual(upgrades, ['/ws/chat'], 'the socket tried the loopback address, nothing else')
    assert.ok(closes.every((c) => !c.loggedOut))
  } finally {
    sock.end(undefined)
  }
})

test('the real bridge program: listens with its token, reports connecting, stops on SIGTERM', { skip: reason }, async (t) => {
  const { upgrades, url, dir } = await refusingServer(t)
  const logFile = join(dir, 'logs', 'whatsapp-bridge.log')
  const run = await spawnBridge({
    script: BUNDLED_BRIDGE,
    cwd: BRIDGE_DIR,
    env: { WHATSAPP_AUTH_DIR: join(dir, 'auth'), WHATSAPP_MODE: 'self-chat', WHATSAPP_REPLY_PREFIX: '', WHATSAPP_WEB_SOCKET_URL: url },
    logFile,
    startTimeoutMs: 30_000,
  })
  t.after(() => run.stop())
  assert.deepEqual(await run.client.health(), { status: 'connecting', mode: 'self-chat', me: null, queued: 0 })
  const deadline = Date.now() + 15_000
  while (upgrades.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  assert.ok(upgrades.length >= 1, 'the bridge tried the loopback address')
  await run.stop()
  assert.equal(await run.exited, 0)
})
