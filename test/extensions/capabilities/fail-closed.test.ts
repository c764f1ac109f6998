// A scope value a command cannot use never widens access: an uncompilable glob beside `https://*`
// (or a path entry beside `/srv/ok/**`) fails `check` and denies the command at run time. Resolved
// scope lists hold each value once, in order. `core::window` is an unknown permission, with a hint.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { appManifest, builtinManifests, checkCapabilityFiles, checkPathScope, checkUrlScope, formatProblem, openerScopeError, ResolvedAcl, type AccessRequest } from 'agent/sdk'

const manifests = builtinManifests(appManifest({ commands: ['greet'] }))
const check = (capabilities: unknown) => checkCapabilityFiles([{ file: 'caps.json', text: JSON.stringify(capabilities) }], manifests)
/** Resolves without checking first, as a library user skipping `check` would. */
const unchecked = (capabilities: unknown[]) => new ResolvedAcl(check(capabilities).capabilities, { platform: 'linux', manifests })
const openUrl: AccessRequest = { command: 'plugin:opener|open_url', window: 'main', origin: { kind: 'local' } }
const openPath: AccessRequest = { ...openUrl, command: 'plugin:opener|open_path' }

describe('an uncompilable scope pattern fails closed', () => {
  const badUrl = { identifier: 'main', windows: ['main'], permissions: [{ identifier: 'opener:allow-open-url', allow: [{ url: '[' }, { url: 'https://*' }] }] }

  test('check names the file, the capability, the permission and the entry', () => {
    const r = check(badUrl)
    assert.equal(r.problems.length, 1)
    const p = r.problems[0]!
    assert.deepEqual([p.kind, p.file, p.capability, p.permission, p.field], ['parse', 'caps.json', 'main', 'opener:allow-open-url', 'permissions[0].allow[0]'])
    assert.match(p.message, /scope entry \{"url":"\["\} cannot be compiled: url: Pattern syntax error near position 0: invalid range pattern/)
    assert.equal(formatProblem(p).split(': ').slice(0, 4).join(': '), 'caps.json: capability "main": permission opener:allow-open-url: permissions[0].allow[0]')
  })

  test('at run time the command is denied, with the reason, and the URL check refuses too', () => {
    const decision = unchecked([badUrl]).check(openUrl)
    assert.equal(decision.allowed, false)
    assert.match(decision.reason, /plugin:opener\|open_url denied: the scope entry \{"url":"\["\} of opener:allow-open-url in capability "main" cannot be used/)
    const verdict = checkUrlScope('https://x.org', undefined, { allow: [{ url: '[' }, { url: 'https://*' }], deny: [] })
    assert.equal(verdict.allowed, false)
    assert.match(verdict.reason, /^Not allowed to open url https:\/\/x\.org: the scope entry \{"url":"\["\} cannot be used \(url: Pattern syntax error/)
  })

  test('a path entry that does not compile beside a good one: check fails, open_path and open_url are denied', () => {
    const caps = { identifier: 'main', windows: ['main'], permissions: [{ identifier: 'opener:allow-open-path', allow: [{ path: '/srv/[x' }, { path: '/srv/ok/**' }] }, 'opener:allow-open-url'] }
    assert.deepEqual(check(caps).problems.map((p) => [p.permission, p.field]), [['opener:allow-open-path', 'permissions[0].allow[0]']])
    assert.equal(unchecked([caps]).check(openPath).allowed, false)
    const verdict = checkPathScope('/srv/ok/a', undefined, { allow: [{ path: '/srv/[x' }, { path: '/srv/ok/**' }], deny: [] }, { dirs: {} })
    assert.equal(verdict.allowed, false)
    assert.match(verdict.reason, /cannot be used \(path: Pattern syntax error near position 5: invalid range pattern\)/)
    // The scope is the opener's: a broken path entry fails a URL check as well (the reference loads all entries).
    assert.equal(checkUrlScope('https://x.org', undefined, { allow: [{ url: 'https://*' }, { path: '/srv/[x' }], deny: [] }).allowed, false)
  })

  test('positions count from the written path, after its variable', () => {
    assert.equal(openerScopeError({ path: '$HOME/[x' }), 'path: Pattern syntax error near position 6: invalid range pattern')
    assert.equal(openerScopeError({ path: '$NOTAVAR[x' }), 'path: Pattern syntax error near position 8: invalid range pattern')
  })

  test('entries of the wrong shape are unusable too: a typo in a deny entry must not drop the deny', () => {
    for (const value of [{ ulr: 'https://evil.example/*' }, 'https://*', { url: 'https://*', app: 3 }, null]) {
      assert.ok(openerScopeError(value), JSON.stringify(value))
      const caps = { identifier: 'main', windows: ['main'], permissions: [{ identifier: 'opener:default', deny: [value] }] }
      assert.equal(check(caps).problems.length, 1, JSON.stringify(value))
      assert.equal(unchecked([caps]).check(openUrl).allowed, false)
    }
  })

  test('a broken scope-only entry of another capability denies the opener everywhere (its global scope)', () => {
    const caps = [
      { identifier: 'main', windows: ['main'], permissions: ['opener:default'] },
      { identifier: 'other', windows: ['other'], permissions: [{ identifier: 'opener:allow-default-urls', deny: [{ url: 'https://**x' }] }] },
    ]
    const problems = check(caps).problems
    assert.deepEqual(problems.map((p) => [p.capability, p.permission, p.field]), [['other', 'opener:allow-default-urls', 'permissions[0].deny[0]']])
    const decision = unchecked(caps).check(openUrl)
    assert.equal(decision.allowed, false)
    assert.match(decision.reason, /a global scope of opener/)
  })

  test('look-alikes that compile are accepted and behave', () => {
    const caps = {
      identifier: 'main',
      windows: ['main'],
      permissions: [
        { identifier: 'opener:allow-open-url', allow: [{ url: '[[]x' }, { url: 'https://*', extra: 'ignored' }, { url: 'https://a/*', app: true }], deny: [{ url: 'https://[e]vil/*', app: null }] },
        { identifier: 'opener:allow-open-path', allow: [{ path: '/srv/[x]' }, { path: '$HOME/**', app: 'gimp' }, { url: 'https://*', path: '/[' }] },
      ],
    }
    assert.deepEqual(check(caps).problems, [])
    const decision = unchecked([caps]).check(openUrl)
    assert.ok(decision.allowed)
    assert.ok(checkUrlScope('https://x.org', undefined, decision.scopes).allowed)
    assert.ok(!checkUrlScope('https://evil/x', undefined, decision.scopes).allowed)
    assert.ok(checkPathScope('/srv/x', undefined, unchecked([caps]).check(openPath).scopes, { dirs: {} }).allowed)
    // Scopes of plugins the engine does not interpret pass through as written.
    assert.deepEqual(check({ identifier: 'a', windows: ['a'], permissions: [{ identifier: 'allow-greet', allow: [{ url: '[' }] }] }).problems, [])
  })
})

describe('resolved scopes hold each value once, in order', () => {
  test('opener:default with a global deny lists the default URLs once', () => {
    const caps = { identifier: 'main', windows: ['main'], permissions: ['opener:default', { identifier: 'opener:allow-default-urls', deny: [{ url: 'https://evil.example/*' }] }] }
    const decision = unchecked([caps]).check(openUrl)
    assert.deepEqual(decision.scopes, { allow: [{ url: 'mailto:*' }, { url: 'tel:*' }, { url: 'http://*' }, { url: 'https://*' }], deny: [{ url: 'https://evil.example/*' }] })
    assert.deepEqual(decision.globalScope, decision.scopes)
  })

  test('deep equality whatever the key order; values that differ stay', () => {
    const caps = [
      { identifier: 'a', windows: ['main'], permissions: [{ identifier: 'opener:allow-open-url', allow: [{ url: 'https://x/*', app: 'ff' }, { url: 'https://x/*' }] }] },
      { identifier: 'b', windows: ['main'], permissions: [{ identifier: 'opener:allow-open-url', allow: [{ app: 'ff', url: 'https://x/*' }, { url: 'https://y/*' }] }] },
    ]
    const decision = unchecked(caps).check(openUrl)
    assert.deepEqual(decision.commandScope.allow, [{ url: 'https://x/*', app: 'ff' }, { url: 'https://x/*' }, { url: 'https://y/*' }])
  })
})

describe('core::window', () => {
  test('an unknown permission with a did-you-mean, not the "single colon" message', () => {
    const r = check({ identifier: 'c', windows: ['main'], permissions: ['core::window', 'opener::default', 'window:allow-close', 'core:window:allow-clse'] })
    assert.deepEqual(r.problems.map((p) => p.kind), ['unknown-permission', 'unknown-permission', 'unknown-plugin', 'unknown-permission'])
    const [core, opener, window, typo] = r.problems.map((p) => p.message)
    assert.equal(core, 'Permission core::window not found: unknown permission core::window (did you mean core:window:default?)')
    assert.doesNotMatch(core!, /colon/)
    assert.match(opener!, /did you mean opener:default\?/)
    assert.match(window!, /did you mean core:window:allow-close\?/)
    assert.match(typo!, /did you mean core:window:allow-close\?/)
  })

  test('look-alikes keep the grammar message: x:y:z, a trailing colon, an underscore', () => {
    const r = check({ identifier: 'c', windows: ['main'], permissions: ['x:y:z', 'core:', 'core::bad_id'] })
    assert.deepEqual(r.problems.map((p) => p.kind), ['invalid-permission-identifier', 'invalid-permission-identifier', 'invalid-permission-identifier'])
    assert.match(r.problems[0]!.message, /single separator/)
  })
})
