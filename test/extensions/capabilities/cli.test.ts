// `agent capabilities …` through the real bin (`node kernel/bin/agent.mjs`) in a temporary
// AGENT_HOME: query's JSON answer and its exit code 2 with the error kind for each kind of invalid
// file, check, schema (a real JSON Schema validator), explain and token.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { Validator } from '@cfworker/json-schema'
import { makeTempHome } from 'agent/sdk/testing'
import { runAgent } from '../../helpers/agent-process.ts'

function home(t: TestContext, files: Record<string, unknown> = {}): { home: string; file(name: string): string } {
  const dir = makeTempHome('agent-cap-cli-')
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'capabilities'))
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body))
  return { home: dir, file: (name) => join(dir, name) }
}

const MAIN = {
  identifier: 'main',
  windows: ['main'],
  webviews: ['inner-*'],
  permissions: [
    'core:default',
    'opener:default',
    { identifier: 'opener:allow-open-url', allow: [{ url: 'https://docs.example.com/*', app: 'firefox' }], deny: [{ url: 'https://docs.example.com/private/*' }] },
    { identifier: 'opener:allow-open-path', allow: [{ path: '$APP/notes/**' }, { path: '$LOG/*.log' }], deny: [{ path: '$APP/notes/secret/**' }] },
  ],
}

async function query(h: { home: string }, args: string[]) {
  const r = await runAgent(['capabilities', 'query', ...args, '--json'], { home: h.home })
  return { code: r.code, json: r.stdout ? JSON.parse(r.stdout) : undefined, stderr: r.stderr }
}

describe('agent capabilities query', () => {
  test('allowed, with the merged scopes and scopeAllowed for a URL', async (t) => {
    const h = home(t, { 'main.json': MAIN })
    const r = await query(h, ['--file', h.file('main.json'), '--window', 'main', '--platform', 'linux', '--command', 'plugin:opener|open_url', '--scope-url', 'https://docs.example.com/guide', '--with', 'firefox'])
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(Object.keys(r.json), ['allowed', 'scopes', 'scopeAllowed'])
    assert.equal(r.json.allowed, true)
    assert.deepEqual(r.json.scopes, {
      allow: [{ url: 'https://docs.example.com/*', app: 'firefox' }, { url: 'mailto:*' }, { url: 'tel:*' }, { url: 'http://*' }, { url: 'https://*' }],
      deny: [{ url: 'https://docs.example.com/private/*' }],
    })
    assert.equal(r.json.scopeAllowed, true)
    const privateUrl = await query(h, ['--file', h.file('main.json'), '--window', 'main', '--platform', 'linux', '--command', 'plugin:opener|open_url', '--scope-url', 'https://docs.example.com/private/x'])
    assert.equal(privateUrl.json.scopeAllowed, false)
  })

  test('path scopes with $APP and $LOG and --base-dir, through a webview glob', async (t) => {
    const h = home(t, { 'main.toml': 'identifier = "main"\nwebviews = ["inner-*"]\npermissions = [{ identifier = "opener:allow-open-path", allow = [{ path = "$APP/notes/**" }, { path = "$LOG/*.log" }], deny = [{ path = "$APP/notes/secret/**" }] }]\n' })
    const base = ['--file', h.file('main.toml'), '--window', 'any', '--webview', 'inner-2', '--command', 'plugin:opener|open_path', '--base-dir', 'APP=/srv/app', '--base-dir', 'LOG=/var/log/app']
    const cases: Array<[string, boolean]> = [['/srv/app/notes/a/b.md', true], ['/srv/app/notes/secret/k', false], ['/var/log/app/sub/agent.log', false]]
    const results = await Promise.all(cases.map(([path]) => query(h, [...base, '--scope-path', path])))
    results.forEach((r, i) => {
      assert.equal(r.code, 0, r.stderr)
      assert.equal(r.json.allowed, true)
      assert.equal(r.json.scopeAllowed, cases[i]![1], cases[i]![0])
    })
  })

  test('denied: another window, a remote URL, a platform the capability excludes', async (t) => {
    const h = home(t, { 'main.json': { ...MAIN, platforms: ['linux', 'macOS'] } })
    const f = ['--file', h.file('main.json'), '--command', 'plugin:window|title']
    const [window, platform, ok] = await Promise.all([
      query(h, [...f, '--window', 'settings', '--platform', 'linux']),
      query(h, [...f, '--window', 'main', '--platform', 'windows', '--url', 'https://docs.example.com/']),
      query(h, [...f, '--window', 'main', '--platform', 'macOS']),
    ])
    assert.deepEqual(Object.keys(ok.json), ['allowed', 'scopes'], 'no scopeAllowed without a scope argument')
    for (const r of [window, platform]) {
      assert.equal(r.code, 0, r.stderr)
      assert.deepEqual(r.json, { allowed: false, scopes: { allow: [], deny: [] } })
    }
    assert.equal(ok.json.allowed, true)
  })

  test('app commands: --app-command makes allow-<command> known', async (t) => {
    const h = home(t, { 'app.json': { identifier: 'app', windows: ['main'], permissions: ['allow-save-note'] } })
    const args = ['--file', h.file('app.json'), '--window', 'main', '--command', 'save_note']
    const known = await query(h, [...args, '--app-command', 'save_note'])
    assert.equal(known.json.allowed, true)
    const unknown = await query(h, args)
    assert.equal(unknown.code, 2)
    assert.equal(unknown.json.error.kind, 'unknown-permission')
  })

  test('every kind of invalid file exits 2 with {"error": {kind, message}}', async (t) => {
    const files: Record<string, unknown> = {
      'parse.json': '{"identifier": "x", "permissions": [',
      'missing-field.json': { identifier: 'x' },
      'invalid-platform.json': { identifier: 'x', permissions: [], platforms: ['macos'] },
      'invalid-permission-identifier.json': { identifier: 'x', permissions: ['Bad_Id'] },
      'duplicate-permission.json': { identifier: 'x', permissions: ['core:default', 'core:default'] },
      'unknown-permission.json': { identifier: 'x', permissions: ['core:window:allow-teleport'] },
      'unknown-plugin.json': { identifier: 'x', permissions: ['teleport:default'] },
      'duplicate-capability.json': [{ identifier: 'x', permissions: [] }, { identifier: 'x', permissions: [] }],
    }
    const h = home(t, files)
    const results = await Promise.all(Object.keys(files).map((name) => query(h, ['--file', h.file(name), '--window', 'main', '--command', 'plugin:app|version'])))
    Object.keys(files).forEach((name, i) => {
      const r = results[i]!
      assert.equal(r.code, 2, name)
      assert.deepEqual(Object.keys(r.json), ['error'])
      assert.deepEqual(Object.keys(r.json.error), ['kind', 'message'])
      assert.equal(r.json.error.kind, name.replace('.json', ''), `${name}: ${r.json.error.message}`)
      assert.ok(r.json.error.message.includes(h.file(name)), 'the message names the file')
    })
    // A duplicate across two files.
    writeFileSync(h.file('a.json'), JSON.stringify({ identifier: 'x', permissions: [] }))
    writeFileSync(h.file('b.toml'), 'identifier = "x"\npermissions = []\n')
    const across = await query(h, ['--file', h.file('a.json'), '--file', h.file('b.toml'), '--window', 'main', '--command', 'x'])
    assert.equal(across.code, 2)
    assert.equal(across.json.error.kind, 'duplicate-capability')
  })

  test('bad arguments: unknown platform spelling (exit 2, kind invalid-platform), a missing file', async (t) => {
    const h = home(t, { 'main.json': MAIN })
    const platform = await query(h, ['--file', h.file('main.json'), '--window', 'main', '--command', 'x', '--platform', 'macos'])
    assert.equal(platform.code, 2)
    assert.equal(platform.json.error.kind, 'invalid-platform')
    const missing = await query(h, ['--file', h.file('nope.json'), '--window', 'main', '--command', 'x'])
    assert.equal(missing.code, 2)
    assert.equal(missing.json.error.kind, 'parse')
    assert.match(missing.json.error.message, /cannot read the file: no such file/)
  })

  test('without --file: the files of <agent_home>/capabilities', async (t) => {
    const h = home(t, { 'capabilities/main.json': MAIN })
    const r = await query(h, ['--window', 'main', '--command', 'plugin:opener|reveal_item_in_dir'])
    assert.equal(r.json.allowed, true)
  })
})

describe('agent capabilities check, schema, explain, token', () => {
  test('check: exit 0 when valid; every problem of every file and exit 2 otherwise', async (t) => {
    const h = home(t, { 'capabilities/main.json': MAIN, 'bad.toml': 'identifier = "b"\nplatforms = ["ios"]\npermissions = ["nope:x", "core:default", "core:default"]\n' })
    const ok = await runAgent(['capabilities', 'check'], { home: h.home })
    assert.equal(ok.code, 0, ok.stderr)
    assert.match(ok.stdout, /ok: 1 capability in 1 file/)
    const bad = await runAgent(['capabilities', 'check', h.file('bad.toml'), h.file('capabilities/main.json')], { home: h.home })
    assert.equal(bad.code, 2)
    for (const kind of ['invalid-platform', 'unknown-plugin', 'duplicate-permission']) assert.match(bad.stdout, new RegExp(`bad\\.toml: capability "b": .*\\[${kind}\\]`))
    assert.match(bad.stdout, /3 problems in 2 files/)
    const json = await runAgent(['capabilities', 'check', h.file('bad.toml'), '--json'], { home: h.home })
    const doc = JSON.parse(json.stdout)
    assert.equal(doc.ok, false)
    assert.equal(doc.problems.length, 3)
    assert.ok(doc.problems.every((p: any) => p.file && p.capability === 'b' && p.field && p.expected))
  })

  test('schema: a JSON Schema that accepts the three forms and flags what check flags', async (t) => {
    const h = home(t)
    const r = await runAgent(['capabilities', 'schema'], { home: h.home })
    assert.equal(r.code, 0, r.stderr)
    const schema = JSON.parse(r.stdout)
    const validator = new Validator(schema, '2020-12', false)
    const valid = (doc: unknown) => validator.validate(doc).valid
    assert.ok(valid(MAIN))
    assert.ok(valid([MAIN, { ...MAIN, identifier: 'two' }]))
    assert.ok(valid({ capabilities: [MAIN] }))
    assert.ok(!valid({ identifier: 'x' }), 'permissions is required')
    assert.ok(!valid({ identifier: 'x', permissions: ['core:default', 'core:default'] }), 'unique items')
    assert.ok(!valid({ identifier: 'x', permissions: ['core:window:allow-teleport'] }), 'known identifiers only')
    assert.ok(!valid({ identifier: 'x', permissions: [], platforms: ['macos'] }), 'exact platform spellings')
    assert.ok(schema.$defs.Identifier.anyOf.some((i: any) => i.const === 'opener:allow-default-urls' && /mailto/.test(i.description)))
  })

  test('explain: which capability and permission decided, and why', async (t) => {
    const h = home(t, { 'capabilities/main.json': MAIN, 'capabilities/lock.json': { identifier: 'lock', windows: ['nobody'], permissions: ['core:window:deny-title'] }, 'capabilities/mac.json': { identifier: 'mac', windows: ['main'], platforms: ['macOS'], permissions: ['core:window:allow-close'] } })
    const granted = await runAgent(['capabilities', 'explain', '--window', 'main', '--command', 'plugin:opener|open_url', '--platform', 'linux', '--scope-url', 'https://docs.example.com/private/x'], { home: h.home })
    assert.equal(granted.code, 0, granted.stderr)
    assert.match(granted.stdout, /: ALLOWED\n/)
    assert.match(granted.stdout, /granted by capability "main" \(.*main\.json\): entry "opener:default" → permission opener:allow-open-url/)
    assert.match(granted.stdout, /out of scope \(Not allowed to open url https:\/\/docs\.example\.com\/private\/x: denied by/)
    const denied = await runAgent(['capabilities', 'explain', '--window', 'main', '--command', 'plugin:window|title', '--platform', 'linux'], { home: h.home })
    assert.match(denied.stdout, /DENIED\n  denied by capability "lock" .*permission core:window:deny-title/)
    assert.match(denied.stdout, /capability "main" .* would allow it through entry "core:default" → permission core:window:allow-title, but the deny wins/)
    const elsewhere = await runAgent(['capabilities', 'explain', '--window', 'main', '--command', 'plugin:window|close', '--platform', 'linux'], { home: h.home })
    assert.match(elsewhere.stdout, /capability "mac" .* would allow it, but is only active on macOS/)
  })

  test('an uncompilable scope pattern: check exits 2 naming it, query and explain deny', async (t) => {
    const bad = { identifier: 'main', windows: ['main'], permissions: [{ identifier: 'opener:allow-open-url', allow: [{ url: '[' }, { url: 'https://*' }] }] }
    const h = home(t, { 'bad.json': bad })
    const check = await runAgent(['capabilities', 'check', h.file('bad.json')], { home: h.home })
    assert.equal(check.code, 2)
    assert.match(check.stdout, /bad\.json: capability "main": permission opener:allow-open-url: permissions\[0\]\.allow\[0\]: scope entry \{"url":"\["\} cannot be compiled: .*invalid range pattern.*\[parse\]/)
    const json = JSON.parse((await runAgent(['capabilities', 'check', h.file('bad.json'), '--json'], { home: h.home })).stdout)
    assert.deepEqual([json.ok, json.problems[0].permission, json.problems[0].field], [false, 'opener:allow-open-url', 'permissions[0].allow[0]'])
    const args = ['--file', h.file('bad.json'), '--window', 'main', '--command', 'plugin:opener|open_url', '--scope-url', 'https://x.org']
    const q = await query(h, args)
    assert.equal(q.code, 2, 'query refuses a file check refuses')
    assert.equal(q.json.error.kind, 'parse')
    // Harmless look-alike: `[[]` is a valid class; the same query answers and the URL is in scope.
    writeFileSync(h.file('ok.json'), JSON.stringify({ ...bad, permissions: [{ identifier: 'opener:allow-open-url', allow: [{ url: '[[]' }, { url: 'https://*' }] }] }))
    const ok = await query(h, ['--file', h.file('ok.json'), ...args.slice(2)])
    assert.deepEqual([ok.code, ok.json.allowed, ok.json.scopeAllowed], [0, true, true])
  })

  test('token: signed for a window label, secret kept 0600 in <agent_home>', async (t) => {
    const h = home(t)
    const before = Date.now()
    const r = await runAgent(['capabilities', 'token', '--window', 'main', '--webview', 'inner-1', '--ttl', '120', '--json'], { home: h.home })
    const after = Date.now()
    assert.equal(r.code, 0, r.stderr)
    const doc = JSON.parse(r.stdout)
    assert.match(doc.token, /^acap1\.[\w-]+\.[\w-]+$/)
    assert.equal(doc.window, 'main')
    assert.equal(doc.webview, 'inner-1')
    const expires = Date.parse(doc.expires_at)
    assert.ok(expires >= before + 119_000 && expires <= after + 120_000, `expires ${doc.expires_at}`)
    assert.equal(statSync(h.file('capability-token.secret')).mode & 0o777, 0o600)
    const bad = await runAgent(['capabilities', 'token', '--window', 'has space'], { home: h.home })
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /not a valid label/)
  })
})
