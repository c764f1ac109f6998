// The command layer: commands extensions expose to frontends get allow-/deny- permissions,
// extensions declare permission sets, names are owned, and withdrawal follows unloading. Window
// tokens: signed, label-checked, expiring.

import assert from 'node:assert/strict'
import { chmodSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { COMMAND_LAYER_SERVICE, defineExtension, exposeToFrontends, type CommandLayer } from 'agent/sdk'
import { createTestKernel, makeTempHome } from 'agent/sdk/testing'
import { currentManifests } from '../../../extensions/capabilities/acl-state.ts'
import { createCommandLayer } from '../../../extensions/capabilities/command-layer.ts'
import { issueToken, loadSecret, verifyToken } from '../../../extensions/capabilities/token.ts'

const noop = () => null

test('exposed commands become allow-/deny- permissions (underscores → hyphens); declared sets expand', () => {
  const layer = createCommandLayer()
  layer.expose('notes', [{ name: 'save_note', handler: noop }, { name: 'list_all_notes', default: true, handler: noop }], {
    permissions: [{ identifier: 'notes-scope', scope: { allow: [{ path: '$HOME/notes/**' }] } }],
    sets: [{ identifier: 'notes-all', permissions: ['allow-save-note', 'default', 'notes-scope'] }],
  })
  const { manifests } = currentManifests(layer, [], ['extra_cmd'])
  const ids = manifests.identifiers().map((i) => i.id)
  for (const id of ['allow-save-note', 'deny-save-note', 'allow-list-all-notes', 'deny-list-all-notes', 'allow-extra-cmd', 'notes-all', 'notes-scope', 'default']) assert.ok(ids.includes(id), id)
  const expanded = manifests.expand('notes-all')
  assert.ok(expanded.ok)
  assert.deepEqual(expanded.permissions.map((p) => p.id), ['allow-save-note', 'allow-list-all-notes', 'notes-scope'])
  assert.deepEqual(manifests.get('__app-acl__')!.permissions.get('deny-save-note')!.commands, { deny: ['save_note'] })
})

test('names are owned: another extension cannot take one; the same owner may re-expose (hot reload) and the newest wins', () => {
  const layer: CommandLayer = createCommandLayer()
  const first = layer.expose('a', [{ name: 'greet', description: 'v1', handler: noop }])
  assert.throws(() => layer.expose('b', [{ name: 'greet', handler: noop }]), /"greet" of extension "b" is already exposed by extension "a"/)
  assert.throws(() => layer.expose('b', [{ name: 'Greet-Me', handler: noop }]), /must be snake_case/)
  assert.throws(() => layer.expose('b', [], { sets: [{ identifier: 'x:y', permissions: [] }] }), /kebab-case without a prefix/)
  const second = layer.expose('a', [{ name: 'greet', description: 'v2', handler: noop }])
  assert.equal(layer.commands()[0]!.command.description, 'v2')
  first()
  assert.equal(layer.commands()[0]!.command.description, 'v2')
  let changes = 0
  layer.subscribe(() => changes++)
  second()
  assert.deepEqual(layer.commands(), [])
  assert.equal(changes, 1)
})

test('through the kernel: exposeToFrontends needs dependsOn capabilities, and unloading withdraws', async (t) => {
  const k = await createTestKernel({
    builtins: ['capabilities'],
    extensions: [
      defineExtension({ name: 'front', dependsOn: ['capabilities'], setup: (api) => exposeToFrontends(api, [{ name: 'ping', handler: () => 'pong' }]) }),
      defineExtension({ name: 'thief', dependsOn: ['capabilities'], setup: (api) => exposeToFrontends(api, [{ name: 'ping', handler: () => 'mine' }]) }),
    ],
  })
  t.after(() => k.close())
  const states = Object.fromEntries(k.kernel.extensions().map((e) => [e.name, e]))
  assert.equal(states.front!.state, 'loaded')
  assert.equal(states.thief!.state, 'failed')
  assert.match(states.thief!.reason!, /already exposed by extension "front"/)
  const layer = k.kernel.services.require<CommandLayer>(COMMAND_LAYER_SERVICE)
  assert.deepEqual(layer.commands().map((c) => `${c.owner}:${c.command.name}`), ['front:ping'])
  await k.kernel.unload('front')
  assert.deepEqual(layer.commands(), [])
})

test('tokens: HMAC-signed labels, constant-time verified, expiring; the secret is created 0600', (t) => {
  const home = makeTempHome('agent-cap-token-')
  t.after(() => rmSync(home, { recursive: true, force: true }))
  const secret = loadSecret(home)
  assert.equal(statSync(join(home, 'capability-token.secret')).mode & 0o777, 0o600)
  assert.deepEqual(loadSecret(home), secret, 'the same secret on every load')
  const now = Date.now()
  const issued = issueToken(secret, { window: 'main', webview: 'panel/1', ttlSeconds: 60, now })
  const ok = verifyToken(secret, issued.token, now + 1000)
  assert.ok(ok.ok && ok.window === 'main' && ok.webview === 'panel/1')
  assert.deepEqual(verifyToken(secret, issued.token, now + 61_000), { ok: false, reason: 'capability token expired; issue a new one with `agent capabilities token`' })
  assert.equal(verifyToken(Buffer.alloc(32, 1), issued.token, now).ok, false)
  assert.equal(verifyToken(secret, issued.token.slice(0, -2) + 'xx', now).ok, false)
  assert.equal(verifyToken(secret, 'acap1.e30.', now).ok, false)
  assert.equal(verifyToken(secret, 'garbage', now).ok, false)
  assert.throws(() => issueToken(secret, { window: 'has space', ttlSeconds: 60 }), /not a valid label/)
  assert.throws(() => issueToken(secret, { window: 'main', ttlSeconds: 0 }), /positive number of seconds/)

  chmodSync(join(home, 'capability-token.secret'), 0o644)
  assert.throws(() => loadSecret(home), /readable by other users/)
})
