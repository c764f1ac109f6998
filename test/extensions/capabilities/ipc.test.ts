// The IPC endpoint of a running agent: window labels from signed tokens only, local vs remote from
// the Origin header, 403 with the reason for denied calls, opener scopes before anything opens, and
// capability files hot-reloaded (a broken set keeps the previous one).

import assert from 'node:assert/strict'
import { realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { issueToken, loadSecret } from '../../../extensions/capabilities/token.ts'
import { startAgent, type Agent } from './harness.ts'

const FILES = {
  'main.json': {
    identifier: 'main',
    windows: ['main'],
    permissions: ['default', 'core:default', 'opener:default', { identifier: 'opener:allow-open-path', allow: [{ path: '$HOME/notes/**' }] }, 'core:window:allow-close', 'allow-wipe', 'allow-explode'],
  },
  'panel.toml': 'identifier = "panel"\nwebviews = ["panel-*"]\npermissions = [{ identifier = "notes", allow = [{ path = "$HOME/notes/**" }] }]\n',
  'site.json': { identifier: 'site', local: false, remote: { urls: ['https://*.example.com'] }, windows: ['main'], permissions: ['allow-read-note'] },
  'lock.json': { identifier: 'lock', windows: ['nobody'], permissions: ['deny-wipe'] },
}
const CONFIG = { local_origins: ['http://app.local:1234'] }

/** Polls until `check` passes (bounded: the watcher debounces and reloads asynchronously). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  assert.fail(`timed out waiting for ${what}`)
}

async function agent(t: import('node:test').TestContext): Promise<Agent & { main: string }> {
  const a = await startAgent(t, FILES, { config: CONFIG })
  return Object.assign(a, { main: await a.token('main') })
}

test('arguments are a bounded JSON object: too deep, too many entries, not an object or malformed is a 400 and the handler never runs', async (t) => {
  const a = await agent(t)
  const send = (body: string) => fetch(`${a.url}/ipc/greet`, { method: 'POST', headers: { authorization: `Bearer ${a.main}`, 'content-type': 'application/json' }, body })
  for (const [body, code] of [
    ['{"name":' + '['.repeat(100_000), 'json_too_deep'],
    [`{"name":[${'0,'.repeat(10_000)}0]}`, 'json_too_large'],
    ['["ada"]', 'invalid_body'],
    ['{"name":', 'invalid_json'],
  ]) {
    const res = await send(body!)
    assert.equal(res.status, 400, code)
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, code)
  }
  assert.equal(a.calls.length, 0)
  // A look-alike that is fine: brackets inside a string, a BOM, an empty body (no arguments).
  assert.equal((await send('\ufeff{"name":"[[[[ada"}')).status, 200)
  assert.equal((await send('')).status, 200)
})

test('an allowed app command runs with the labels of the token; a denied one is refused with the reason', async (t) => {
  const a = await agent(t)
  const ok = await a.invoke('greet', { name: 'ada' }, { token: a.main })
  assert.deepEqual(ok, { status: 200, body: 'hello ada from main' })
  assert.equal(a.calls[0]!.webview, 'main')
  assert.deepEqual(a.calls[0]!.origin, { kind: 'local' })

  const denied = await a.invoke('save_note', {}, { token: a.main })
  assert.equal(denied.status, 403)
  assert.equal(denied.body.error.code, 'command_denied')
  assert.match(denied.body.error.message, /save_note not allowed on window "main", webview "main", URL: local; allowed on: \[capability "panel"/)
  assert.equal(a.calls.length, 1, 'the handler never ran')

  const explicit = await a.invoke('wipe', {}, { token: a.main })
  assert.equal(explicit.status, 403)
  assert.match(explicit.body.error.message, /explicitly denied by capability "lock" \(permission deny-wipe\)/)
})

test('tokens: required, unforgeable, expiring; a webview token gets the webview\'s capabilities', async (t) => {
  const a = await agent(t)
  const none = await a.invoke('greet', {})
  assert.equal(none.status, 401)
  assert.equal(none.body.error.code, 'missing_token')

  // Relabel the payload as window "admin" and keep the signature: refused.
  const [prefix, payload, signature] = a.main.split('.')
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
  const forged = [prefix, Buffer.from(JSON.stringify({ ...claims, w: 'admin', v: 'panel-1' })).toString('base64url'), signature].join('.')
  const relabelled = await a.invoke('greet', {}, { token: forged })
  assert.equal(relabelled.status, 401)
  assert.match(relabelled.body.error.message, /invalid capability token signature/)

  const secret = loadSecret(a.home)
  const expired = issueToken(secret, { window: 'main', ttlSeconds: 60, now: Date.now() - 3_600_000 }).token
  const old = await a.invoke('greet', {}, { token: expired })
  assert.equal(old.status, 401)
  assert.match(old.body.error.message, /expired/)
  const foreignSecret = issueToken(Buffer.alloc(32, 7), { window: 'main', ttlSeconds: 60 }).token
  assert.equal((await a.invoke('greet', {}, { token: foreignSecret })).status, 401)

  const panel = await a.token('editor', 'panel-1')
  const saved = await a.invoke('save_note', { text: 'x' }, { token: panel })
  assert.equal(saved.status, 200)
  assert.deepEqual(saved.body.scope.allow, [{ path: '$HOME/notes/**' }], 'the entry scope reaches the handler')
  assert.equal((await a.invoke('greet', {}, { token: panel })).status, 403, 'window "editor" has no capability')

  // Deleting the secret revokes every token issued so far; new ones work.
  rmSync(join(a.home, 'capability-token.secret'))
  assert.equal((await a.invoke('greet', {}, { token: a.main })).status, 401)
  assert.equal((await a.invoke('greet', {}, { token: await a.token('main') })).status, 200)
})

test('local vs remote comes from the Origin header; remote needs a matching remote.urls pattern', async (t) => {
  const a = await agent(t)
  assert.equal((await a.invoke('greet', {}, { token: a.main, origin: 'http://app.local:1234' })).status, 200, 'a configured local origin')
  const remoteGreet = await a.invoke('greet', {}, { token: a.main, origin: 'https://docs.example.com' })
  assert.equal(remoteGreet.status, 403, 'greet is for local content only')
  assert.match(remoteGreet.body.error.message, /not allowed on origin remote: https:\/\/docs\.example\.com\//)
  assert.equal(remoteGreet.body.error.type, 'permission_error')

  const read = await a.invoke('read_note', {}, { token: a.main, origin: 'https://docs.example.com', referer: 'https://docs.example.com/app/page?x=1' })
  assert.equal(read.status, 200)
  assert.deepEqual(a.calls.at(-1)!.origin, { kind: 'remote', url: 'https://docs.example.com/app/page?x=1' })
  const evil = await a.invoke('read_note', {}, { token: a.main, origin: 'https://example.com.evil.net' })
  assert.equal(evil.status, 403)
  assert.equal((await a.invoke('read_note', {}, { token: a.main })).status, 403, 'local content is not in the remote capability')
  // A Referer of another origin cannot widen what the Origin says.
  assert.equal((await a.invoke('read_note', {}, { token: a.main, origin: 'https://evil.net', referer: 'https://docs.example.com/' })).status, 403)
})

test('CORS: the endpoint answers preflights itself and labels its answers for the calling origin', async (t) => {
  const a = await agent(t)
  const preflight = await fetch(`${a.url}/ipc/greet`, { method: 'OPTIONS', headers: { origin: 'https://docs.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } })
  assert.equal(preflight.status, 204)
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://docs.example.com')
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/)
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/)
  const res = await fetch(`${a.url}/ipc/greet`, { method: 'POST', headers: { origin: 'https://docs.example.com', authorization: `Bearer ${a.main}` } })
  assert.equal(res.status, 403)
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://docs.example.com', 'the page can read why it was refused')
})

test('opener: URLs and paths open through the launcher only when the scope allows', async (t) => {
  const a = await agent(t)
  const url = await a.invoke('plugin:opener|open_url', { url: 'https://example.com/docs?q=1' }, { token: a.main })
  assert.deepEqual(url, { status: 200, body: null })
  assert.deepEqual(a.opened(), ['https://example.com/docs?q=1', '--'])

  const file = await a.invoke('plugin:opener|open_url', { url: 'file:///etc/passwd' }, { token: a.main })
  assert.equal(file.status, 403)
  assert.equal(file.body.error.code, 'scope_denied')
  assert.match(file.body.error.message, /Not allowed to open url file:\/\/\/etc\/passwd/)
  const withApp = await a.invoke('plugin:opener|open_url', { url: 'https://example.com', with: 'firefox' }, { token: a.main })
  assert.equal(withApp.status, 403, 'the default URLs are for the default application only')

  const note = join(a.userHome, 'notes', 'todo.md')
  assert.equal((await a.invoke('plugin:opener|open_path', { path: note }, { token: a.main })).status, 200)
  assert.equal(a.opened().at(-2), realpathSync(note))
  const key = await a.invoke('plugin:opener|open_path', { path: join(a.userHome, '.ssh', 'id_ed25519') }, { token: a.main })
  assert.equal(key.status, 403)
  const escape = await a.invoke('plugin:opener|open_path', { path: join(a.userHome, 'notes', '..', '.ssh', 'id_ed25519') }, { token: a.main })
  assert.equal(escape.status, 403)

  assert.equal((await a.invoke('plugin:opener|reveal_item_in_dir', { path: note }, { token: a.main })).status, 200)
  assert.deepEqual(a.opened().slice(-3), ['--reveal', realpathSync(note), '--'])
  assert.equal((await a.invoke('plugin:opener|open_url', { url: 42 }, { token: a.main })).status, 400)
  assert.equal(a.opened().filter((l) => l === '--').length, 3, 'only the three allowed calls reached the launcher')

  // Another window without the opener permission is refused before any scope is looked at.
  const other = await a.token('settings')
  assert.equal((await a.invoke('plugin:opener|open_url', { url: 'https://example.com' }, { token: other })).status, 403)
})

test('core commands: pure ones answer, window management is 501, bad input 400, handler failures 500', async (t) => {
  const a = await agent(t)
  assert.deepEqual(await a.invoke('plugin:path|join', { paths: ['/a', 'b', '../c'] }, { token: a.main }), { status: 200, body: '/a/c' })
  assert.equal((await a.invoke('plugin:app|version', {}, { token: a.main })).status, 200)
  const close = await a.invoke('plugin:window|close', {}, { token: a.main })
  assert.equal(close.status, 501)
  assert.equal((await a.invoke('plugin:window|set_title', {}, { token: a.main })).status, 403, 'not granted: refused before "not implemented"')
  assert.equal((await a.invoke('not a command', {}, { token: a.main })).status, 400)
  const boom = await a.invoke('explode', {}, { token: a.main })
  assert.equal(boom.status, 500)
  assert.match(boom.body.error.message, /explode failed: boom/)
  const res = await fetch(`${a.url}/ipc/greet`, { method: 'POST', headers: { authorization: `Bearer ${a.main}` }, body: '[1,2]' })
  assert.equal(res.status, 400)
})

test('capability files hot-reload; a broken set keeps the previous capabilities', async (t) => {
  const a = await agent(t)
  assert.equal((await a.invoke('greet', {}, { token: a.main })).status, 200)
  a.writeCapability('lock.json', { identifier: 'lock', windows: ['nobody'], permissions: ['deny-wipe', 'deny-greet'] })
  await eventually(async () => (await a.invoke('greet', {}, { token: a.main })).status === 403, 'the new deny')

  a.writeCapability('broken.json', { identifier: 'broken', windows: ['main'], permissions: ['allow-save-note', 'nope:default'] })
  a.writeCapability('lock.json', { identifier: 'lock', windows: ['nobody'], permissions: ['deny-wipe'] })
  await new Promise((r) => setTimeout(r, 400))
  assert.equal((await a.invoke('greet', {}, { token: a.main })).status, 403, 'the previous good set still applies')
  assert.equal((await a.invoke('save_note', {}, { token: a.main })).status, 403, 'nothing of the broken set applies')

  a.writeCapability('broken.json', { identifier: 'broken', windows: ['main'], permissions: ['allow-save-note'] })
  await eventually(async () => (await a.invoke('save_note', {}, { token: a.main })).status === 200, 'the fixed set')
  assert.equal((await a.invoke('greet', {}, { token: a.main })).status, 200)
})

test('reloading the capabilities extension keeps the commands other extensions exposed', async (t) => {
  const a = await agent(t)
  const result = await a.test.kernel.reload('capabilities')
  assert.ok(result.ok, result.reason)
  assert.equal((await a.invoke('greet', { name: 'again' }, { token: a.main })).body, 'hello again from main')
  await a.test.kernel.unload('notes-frontend')
  await eventually(async () => (await a.invoke('greet', {}, { token: a.main })).status !== 200, 'the withdrawn command')
})
