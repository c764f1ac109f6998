// Resolution, rule by rule of the semantics notes: label globs, windows OR webviews, local vs remote
// (URLPattern defaults, wildcards, ports), `local: false`, platforms, default-set expansion, deny
// precedence across capabilities, object entries with scopes, and how scopes merge.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  appManifest,
  builtinManifests,
  checkCapabilityFiles,
  Glob,
  manifestKeyOf,
  RemoteUrlPattern,
  ResolvedAcl,
  type AccessRequest,
  type Target,
} from 'agent/sdk'

const manifests = builtinManifests(
  appManifest({
    commands: ['greet', 'save_note', 'read_note'],
    defaultCommands: ['greet'],
    permissions: [
      { identifier: 'notes-home', description: 'scope only', scope: { allow: [{ path: '$HOME/notes/**' }] } },
      { identifier: 'read-notes-scoped', commands: { allow: ['read_note'] }, scope: { allow: [{ path: '$DOCUMENT/**' }], deny: [{ path: '$DOCUMENT/private/**' }] } },
    ],
    sets: [
      { identifier: 'notes', permissions: ['allow-read-note', 'allow-save-note'] },
      { identifier: 'everything', permissions: ['notes', 'default', 'core:window:allow-set-title'] },
    ],
  }),
)

function acl(capabilities: unknown[], platform: Target = 'linux'): ResolvedAcl {
  const checked = checkCapabilityFiles([{ file: 'caps.json', text: JSON.stringify(capabilities) }], manifests)
  assert.deepEqual(checked.problems, [], 'the test capabilities are valid')
  return new ResolvedAcl(checked.capabilities, { platform, manifests })
}

const local = { kind: 'local' } as const
const remote = (url: string) => ({ kind: 'remote', url }) as const
const allowed = (a: ResolvedAcl, request: Partial<AccessRequest> & { command: string }) => a.check({ window: 'main', origin: local, ...request }).allowed

describe('label globs', () => {
  test('glob-crate semantics: * crosses /, ? is one character, classes, case-sensitive', () => {
    assert.ok(new Glob('*').matches('a/b'))
    assert.ok(new Glob('main-?').matches('main-1'))
    assert.ok(!new Glob('main-?').matches('main-12'))
    assert.ok(new Glob('w[0-9]').matches('w7'))
    assert.ok(!new Glob('w[!0-9]').matches('w7'))
    assert.ok(new Glob('[]]').matches(']'))
    assert.ok(!new Glob('Main').matches('main'))
    assert.ok(new Glob('a/**/b').matches('a/x/y/b'))
    assert.ok(new Glob('a/**').matches('a/x/y'))
    assert.ok(new Glob('a\\b').matches('a\\b'), 'backslash is not an escape')
    assert.throws(() => new Glob('a**'), /recursive wildcards must form a single path component/)
    assert.throws(() => new Glob('***'), /wildcards are either regular/)
    assert.throws(() => new Glob('['), /invalid range pattern/)
  })

  test('window globs select windows; a window label is never tested against webview globs', () => {
    const a = acl([{ identifier: 'c', windows: ['editor-*', 'main'], permissions: ['allow-greet'] }])
    assert.ok(allowed(a, { command: 'greet', window: 'main' }))
    assert.ok(allowed(a, { command: 'greet', window: 'editor-42' }))
    assert.ok(!allowed(a, { command: 'greet', window: 'settings' }))
    const w = acl([{ identifier: 'c', webviews: ['main'], permissions: ['allow-greet'] }])
    assert.ok(!allowed(w, { command: 'greet', window: 'main', webview: 'child' }), 'window "main" does not match a webview glob')
  })
})

describe('webviews vs windows', () => {
  const a = acl([
    { identifier: 'by-window', windows: ['main'], permissions: ['allow-greet'] },
    { identifier: 'by-webview', webviews: ['panel-*'], permissions: ['allow-save-note'] },
    { identifier: 'neither', permissions: ['allow-read-note'] },
  ])
  test('a window match enables every webview of that window', () => {
    assert.ok(allowed(a, { command: 'greet', window: 'main', webview: 'anything' }))
    assert.ok(!allowed(a, { command: 'greet', window: 'other', webview: 'main' }))
  })
  test('a webview match works whatever the window', () => {
    assert.ok(allowed(a, { command: 'save_note', window: 'any', webview: 'panel-3' }))
    assert.ok(!allowed(a, { command: 'save_note', window: 'panel-3', webview: 'x' }))
  })
  test('a plain window is its own webview', () => {
    assert.ok(allowed(a, { command: 'save_note', window: 'panel-1' }))
  })
  test('a capability with neither windows nor webviews grants nothing', () => {
    const d = a.check({ command: 'read_note', window: 'main', origin: local })
    assert.equal(d.allowed, false)
    assert.match(d.reason, /allowed on: \[capability "neither": windows: \[\], webviews: \[\]/)
  })
})

describe('remote content', () => {
  test('URLPattern defaults: a bare origin matches any path, query and hash, on its default port only', () => {
    const p = new RemoteUrlPattern('https://example.com')
    assert.ok(p.test('https://example.com/a/b?c=d#e'))
    assert.ok(p.test('https://EXAMPLE.com'))
    assert.ok(p.test('https://example.com:443/x'), 'the default port is normalised away')
    assert.ok(!p.test('https://example.com:8443/'))
    assert.ok(new RemoteUrlPattern('https://example.com:*').test('https://example.com:8443/'))
    assert.ok(new RemoteUrlPattern('https://example.com/').test('https://example.com/deep/path'))
    assert.ok(!p.test('http://example.com/'))
  })
  test('subdomain, path, scheme and host wildcards', () => {
    const sub = new RemoteUrlPattern('https://*.example.com')
    assert.ok(sub.test('https://a.example.com/'))
    assert.ok(sub.test('https://a.b.example.com/x'))
    assert.ok(!sub.test('https://example.com/'), 'the apex is not a subdomain')
    const path = new RemoteUrlPattern('https://example.com/app/*')
    assert.ok(path.test('https://example.com/app/x/y'))
    assert.ok(!path.test('https://example.com/app'))
    assert.ok(new RemoteUrlPattern('*://localhost').test('http://localhost/'))
    assert.ok(new RemoteUrlPattern('http://tauri.*').test('http://tauri.studio/'))
    assert.ok(new RemoteUrlPattern('http://127.0.0.1:*').test('http://127.0.0.1:5173/'))
  })
  test('remote entries apply only to remote content that matches; local entries only to local content', () => {
    const a = acl([
      { identifier: 'site', local: false, remote: { urls: ['https://*.example.com', 'http://localhost:*'] }, windows: ['main'], permissions: ['allow-greet'] },
      { identifier: 'app', windows: ['main'], permissions: ['allow-save-note'] },
    ])
    assert.ok(allowed(a, { command: 'greet', origin: remote('https://docs.example.com/page') }))
    assert.ok(allowed(a, { command: 'greet', origin: remote('http://localhost:3000/') }))
    assert.ok(!allowed(a, { command: 'greet', origin: remote('https://evil.com/') }))
    assert.ok(!allowed(a, { command: 'greet', origin: local }), 'local: false')
    assert.ok(allowed(a, { command: 'save_note', origin: local }))
    const d = a.check({ command: 'save_note', window: 'main', origin: remote('https://docs.example.com/') })
    assert.equal(d.allowed, false, 'no remote unless listed')
    assert.match(d.reason, /not allowed on origin remote: https:\/\/docs\.example\.com\//)
  })
  test('local: false without remote URLs produces no entries at all, not even its denies', () => {
    const a = acl([
      { identifier: 'grant', windows: ['main'], permissions: ['allow-greet'] },
      { identifier: 'inert', local: false, windows: ['*'], permissions: ['deny-greet'] },
    ])
    assert.ok(allowed(a, { command: 'greet' }))
  })
})

describe('platforms', () => {
  const caps = [
    { identifier: 'desktop', windows: ['main'], platforms: ['linux', 'macOS', 'windows'], permissions: ['allow-greet'] },
    { identifier: 'nowhere', windows: ['main'], platforms: [], permissions: ['allow-save-note'] },
    { identifier: 'everywhere', windows: ['main'], platforms: null, permissions: ['allow-read-note'] },
  ]
  test('absent/null = all platforms, [] = none, a list = exactly those', () => {
    for (const platform of ['linux', 'macOS', 'windows'] as const) assert.ok(allowed(acl(caps, platform), { command: 'greet' }), platform)
    for (const platform of ['android', 'iOS'] as const) assert.ok(!allowed(acl(caps, platform), { command: 'greet' }), platform)
    for (const platform of ['linux', 'iOS'] as const) {
      assert.ok(!allowed(acl(caps, platform), { command: 'save_note' }))
      assert.ok(allowed(acl(caps, platform), { command: 'read_note' }))
    }
    assert.deepEqual(acl(caps, 'iOS').inactive.map((c) => c.identifier), ['desktop', 'nowhere'])
  })
  test('an inactive capability contributes no deny either', () => {
    const a = acl([{ identifier: 'g', windows: ['main'], permissions: ['allow-greet'] }, { identifier: 'mac-deny', windows: ['main'], platforms: ['macOS'], permissions: ['deny-greet'] }])
    assert.ok(allowed(a, { command: 'greet' }))
    assert.ok(!allowed(new ResolvedAcl(a.active.concat(a.inactive), { platform: 'macOS', manifests }), { command: 'greet' }))
  })
})

describe('default sets', () => {
  const a = acl([{ identifier: 'd', windows: ['main'], permissions: ['core:default', 'opener:default', 'default'] }])
  test('core:default holds the nine namespace defaults, not the other commands', () => {
    for (const command of ['plugin:window|title', 'plugin:window|is_maximized', 'plugin:webview|webview_size', 'plugin:app|version', 'plugin:app|name', 'plugin:path|join', 'plugin:event|emit_to', 'plugin:image|rgba', 'plugin:resources|close', 'plugin:menu|popup', 'plugin:tray|set_tooltip']) {
      assert.ok(allowed(a, { command }), command)
    }
    for (const command of ['plugin:window|set_title', 'plugin:window|close', 'plugin:webview|create_webview', 'plugin:app|app_hide', 'plugin:app|set_app_theme']) {
      assert.ok(!allowed(a, { command }), command)
    }
  })
  test('opener:default: open_url and reveal_item_in_dir with the default URLs as global scope; not open_path', () => {
    const d = a.check({ command: 'plugin:opener|open_url', window: 'main', origin: local })
    assert.ok(d.allowed)
    assert.deepEqual(d.globalScope.allow, [{ url: 'mailto:*' }, { url: 'tel:*' }, { url: 'http://*' }, { url: 'https://*' }])
    assert.ok(allowed(a, { command: 'plugin:opener|reveal_item_in_dir' }))
    assert.ok(!allowed(a, { command: 'plugin:opener|open_path' }))
  })
  test("the app's default set holds the commands exposed with default: true", () => {
    assert.ok(allowed(a, { command: 'greet' }))
    assert.ok(!allowed(a, { command: 'save_note' }))
  })
  test('sets expand recursively, across manifests', () => {
    const b = acl([{ identifier: 'e', windows: ['main'], permissions: ['everything'] }])
    for (const command of ['read_note', 'save_note', 'greet', 'plugin:window|set_title']) assert.ok(allowed(b, { command }), command)
    const grant = b.check({ command: 'plugin:window|set_title', window: 'main', origin: local }).grants[0]!
    assert.deepEqual([grant.entry, grant.permission], ['everything', 'core:window:allow-set-title'])
  })
  test('invoke strings: core namespaces drop core:, app commands are bare', () => {
    assert.equal(manifestKeyOf('plugin:window|set_title'), 'core:window')
    assert.equal(manifestKeyOf('plugin:opener|open_url'), 'opener')
    assert.equal(manifestKeyOf('greet'), '__app-acl__')
  })
})

describe('deny precedence', () => {
  test('a deny in any active capability denies the command for every window, webview and origin', () => {
    const a = acl([
      { identifier: 'main', windows: ['main'], remote: { urls: ['https://example.com'] }, permissions: ['allow-greet', 'core:window:allow-close'] },
      { identifier: 'lockdown', windows: ['some-other-window'], permissions: ['deny-greet'] },
    ])
    const d = a.check({ command: 'greet', window: 'main', origin: local })
    assert.equal(d.allowed, false)
    assert.match(d.reason, /explicitly denied by capability "lockdown" \(permission deny-greet\)/)
    assert.deepEqual(d.overridden.map((g) => g.capability), ['main'])
    assert.ok(!allowed(a, { command: 'greet', origin: remote('https://example.com/') }))
    assert.ok(allowed(a, { command: 'plugin:window|close' }), 'other commands are unaffected')
  })
  test('deny and allow in the same capability: deny wins', () => {
    const a = acl([{ identifier: 'both', windows: ['*'], permissions: ['opener:default', 'opener:deny-open-url'] }])
    assert.ok(!allowed(a, { command: 'plugin:opener|open_url' }))
    assert.ok(allowed(a, { command: 'plugin:opener|reveal_item_in_dir' }))
  })
})

describe('scopes', () => {
  test('object entries attach their allow/deny; scopes merge from matching capabilities only, then global scopes from all', () => {
    const a = acl([
      { identifier: 'a-main', windows: ['main'], permissions: [{ identifier: 'opener:allow-open-url', allow: [{ url: 'https://a.example/*' }], deny: [{ url: 'https://a.example/admin/*' }] }] },
      { identifier: 'b-main', windows: ['main'], permissions: [{ identifier: 'opener:allow-open-url', allow: [{ url: 'https://b.example/*' }] }] },
      { identifier: 'c-other', windows: ['other'], permissions: [{ identifier: 'opener:allow-open-url', allow: [{ url: 'https://c.example/*' }] }, 'opener:allow-default-urls'] },
    ])
    const d = a.check({ command: 'plugin:opener|open_url', window: 'main', origin: local })
    assert.ok(d.allowed)
    assert.deepEqual(d.commandScope, { allow: [{ url: 'https://a.example/*' }, { url: 'https://b.example/*' }], deny: [{ url: 'https://a.example/admin/*' }] })
    // The scope-only permission of a capability for another window still lands in the global scope.
    assert.deepEqual(d.globalScope.allow.length, 4)
    assert.deepEqual(d.scopes.allow.slice(0, 2), d.commandScope.allow)
    assert.ok(!JSON.stringify(d.scopes).includes('c.example'), 'capabilities of other windows add nothing')
  })
  test('an object entry on a set scopes every permission of the set; the permission\'s own scope follows', () => {
    const a = acl([{ identifier: 's', windows: ['main'], permissions: [{ identifier: 'notes', allow: [{ path: '$HOME/n/*' }] }, 'notes-home'] }])
    for (const command of ['read_note', 'save_note']) {
      const d = a.check({ command, window: 'main', origin: local })
      assert.deepEqual(d.commandScope.allow, [{ path: '$HOME/n/*' }], command)
      assert.deepEqual(d.globalScope.allow, [{ path: '$HOME/notes/**' }], 'scope-only app permission → app global scope')
    }
  })
  test("an entry's scope comes first, then the permission's own scope", () => {
    const a = acl([{ identifier: 'o', windows: ['main'], permissions: [{ identifier: 'read-notes-scoped', allow: [{ path: '$HOME/extra/*' }], deny: null }] }])
    const d = a.check({ command: 'read_note', window: 'main', origin: local })
    assert.deepEqual(d.commandScope, { allow: [{ path: '$HOME/extra/*' }, { path: '$DOCUMENT/**' }], deny: [{ path: '$DOCUMENT/private/**' }] })
  })
  test('a denied call carries no scope', () => {
    const a = acl([{ identifier: 's', windows: ['main'], permissions: [{ identifier: 'opener:allow-open-url', allow: [{ url: '*' }] }] }])
    assert.deepEqual(a.check({ command: 'plugin:opener|open_url', window: 'x', origin: local }).scopes, { allow: [], deny: [] })
  })
})

describe('reasons', () => {
  test('unknown commands, and commands no capability grants, say so', () => {
    const a = acl([{ identifier: 'x', windows: ['main'], permissions: [] }])
    assert.match(a.check({ command: 'plugin:nope|thing', window: 'main', origin: local }).reason, /no permission manifest knows "nope"/)
    assert.match(a.check({ command: 'plugin:window|close', window: 'main', origin: local }).reason, /no active capability grants it \(permissions that would: core:window:allow-close\)/)
  })
})
