// Capability files: the three forms in JSON and TOML, defaults, and every kind of invalid file —
// each problem located by file, capability, field and what was expected, all reported at once.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { appManifest, builtinManifests, checkCapabilityFiles, formatProblem, identifierError, parseCapabilityFile, type CapabilityProblem } from 'agent/sdk'

const manifests = builtinManifests(appManifest({ commands: ['greet', 'save_note'] }))
const check = (...files: Array<[string, unknown]>) =>
  checkCapabilityFiles(files.map(([file, body]) => ({ file, text: typeof body === 'string' ? body : JSON.stringify(body) })), manifests)
const kinds = (problems: CapabilityProblem[]) => problems.map((p) => p.kind)

describe('file forms', () => {
  test('a single object, with every default applied', () => {
    const r = parseCapabilityFile('one.json', JSON.stringify({ identifier: 'main', permissions: ['core:default'] }))
    assert.deepEqual(r.problems, [])
    assert.equal(r.capabilities.length, 1)
    const c = r.capabilities[0]!
    assert.equal(c.identifier, 'main')
    assert.equal(c.description, '')
    assert.equal(c.remote, null)
    assert.equal(c.local, true)
    assert.deepEqual(c.windows, [])
    assert.deepEqual(c.webviews, [])
    assert.equal(c.platforms, null)
    assert.deepEqual(c.permissions, [{ identifier: 'core:default', form: 'string' }])
  })

  test('a bare array, and an object with a capabilities array (its other keys ignored, with a warning)', () => {
    const list = parseCapabilityFile('list.json', JSON.stringify([{ identifier: 'a', permissions: [] }, { identifier: 'b', permissions: [] }]))
    assert.deepEqual(list.capabilities.map((c) => c.identifier), ['a', 'b'])
    assert.deepEqual(list.capabilities.map((c) => c.source.index), [0, 1])
    // Dispatch is by shape: a `capabilities` key makes a named list even next to an identifier.
    const named = parseCapabilityFile('named.json', JSON.stringify({ identifier: 'stray', capabilities: [{ identifier: 'c', permissions: ['opener:default'] }] }))
    assert.deepEqual(named.problems, [])
    assert.deepEqual(named.capabilities.map((c) => c.identifier), ['c'])
    assert.match(named.warnings[0]!.message, /`identifier` next to `capabilities` is ignored/)
  })

  test('TOML: a single table and [[capabilities]], with object permission entries', () => {
    const single = parseCapabilityFile('one.toml', 'identifier = "t"\nwindows = ["main"]\npermissions = ["core:default", { identifier = "opener:allow-open-url", allow = [{ url = "https://example.com/*" }] }]\nplatforms = ["linux", "macOS"]\n')
    assert.deepEqual(single.problems, [])
    const c = single.capabilities[0]!
    assert.deepEqual(c.platforms, ['linux', 'macOS'])
    assert.deepEqual(c.permissions[1], { identifier: 'opener:allow-open-url', allow: [{ url: 'https://example.com/*' }], deny: null, form: 'object' })
    const list = parseCapabilityFile('list.toml', '[[capabilities]]\nidentifier = "x"\npermissions = []\nlocal = false\nremote = { urls = ["https://*.example.com"] }\n\n[[capabilities]]\nidentifier = "y"\npermissions = []\n')
    assert.deepEqual(list.problems, [])
    assert.deepEqual(list.capabilities.map((c) => [c.identifier, c.local, c.remote]), [['x', false, { urls: ['https://*.example.com'] }], ['y', true, null]])
  })

  test('remote: null and platforms: null mean unset; platforms: [] is kept (active nowhere)', () => {
    const r = parseCapabilityFile('n.json', JSON.stringify({ identifier: 'n', remote: null, platforms: null, permissions: [] }))
    assert.equal(r.capabilities[0]!.remote, null)
    assert.equal(r.capabilities[0]!.platforms, null)
    const empty = parseCapabilityFile('e.json', JSON.stringify({ identifier: 'e', platforms: [], permissions: [] }))
    assert.deepEqual(empty.capabilities[0]!.platforms, [])
  })

  test('unknown fields are ignored, with a warning that suggests the field meant', () => {
    const r = parseCapabilityFile('typo.json', JSON.stringify({ identifier: 't', platform: ['linux'], permissions: [{ identifier: 'core:default', allw: [] }] }))
    assert.deepEqual(r.problems, [])
    assert.equal(r.capabilities[0]!.platforms, null, 'the typo does not restrict the capability')
    assert.match(formatProblem(r.warnings[0]!), /typo\.json: capability "t": platform: unknown field `platform` is ignored \(did you mean `platforms`\?\)/)
    assert.match(r.warnings[1]!.message, /unknown field `allw`/)
  })
})

describe('invalid files: each kind', () => {
  test('parse: JSON and TOML syntax errors name the line', () => {
    const json = check(['bad.json', '{\n  "identifier": "x",\n  "permissions": [,]\n}'])
    assert.deepEqual(kinds(json.problems), ['parse'])
    assert.match(json.problems[0]!.message, /failed to parse JSON: .* at line 3 column 19$/)
    const toml = check(['bad.toml', 'identifier = "x"\npermissions = [\n'])
    assert.deepEqual(kinds(toml.problems), ['parse'])
    assert.match(toml.problems[0]!.message, /failed to parse TOML: .*line \d+ column \d+/)
  })

  test('parse: an unknown extension, a wrong top-level shape, wrong field types', () => {
    const r = check(
      ['caps.yaml', 'identifier: x'],
      ['num.json', '42'],
      ['types.json', { identifier: 7, description: 1, local: 'yes', windows: 'main', webviews: [3], remote: { urls: 'https://x' }, permissions: [true, ['x']], platforms: 'linux' }],
    )
    const byField = Object.fromEntries(r.problems.map((p) => [`${p.file}:${p.field ?? ''}`, p]))
    assert.match(byField['caps.yaml:']!.message, /unknown capability format \.yaml/)
    assert.equal(byField['caps.yaml:']!.expected, 'a .json or .toml file')
    assert.match(byField['num.json:']!.message, /invalid type: number 42/)
    for (const [field, expected] of [
      ['identifier', /a string/],
      ['description', /a string/],
      ['local', /a boolean/],
      ['windows', /array of window labels/],
      ['webviews[0]', /label or glob/],
      ['remote.urls', /array of URL patterns/],
      ['permissions[0]', /identifier string or an object/],
      ['permissions[1]', /identifier string or an object/],
      ['platforms', /an array of `macOS`/],
    ] as const) {
      const p = byField[`types.json:${field}`]
      assert.ok(p, `a problem for ${field}: ${r.problems.map(formatProblem).join('\n')}`)
      assert.equal(p.kind, 'parse')
      assert.equal(p.capability, '#0'.replace('#0', '(no identifier)'), 'a capability without a string identifier is named by position')
      assert.match(p.expected!, expected)
    }
    assert.ok(r.problems.every((p) => p.kind === 'parse'))
    assert.equal(r.capabilities.length, 0)
  })

  test('parse: bad window globs and bad remote URL patterns', () => {
    const r = check(['g.json', { identifier: 'g', windows: ['a**', 'ok-*'], webviews: ['***', '[abc'], remote: { urls: ['https://example.com', 'https://exa mple.com:bad/('] }, permissions: [] }])
    const fields = r.problems.map((p) => `${p.field} ${p.message}`)
    assert.equal(r.problems.length, 4, fields.join('\n'))
    assert.match(fields[0]!, /^remote\.urls\[1\] invalid URL pattern for remote URL/)
    assert.match(fields[1]!, /^windows\[0\] failed to run glob: Pattern syntax error near position 0: recursive wildcards must form a single path component/)
    assert.match(fields[2]!, /^webviews\[0\] .*position 2: wildcards are either regular `\*` or recursive `\*\*`/)
    assert.match(fields[3]!, /^webviews\[1\] .*invalid range pattern/)
  })

  test('missing-field: identifier, permissions, remote.urls, an entry identifier', () => {
    const r = check(['m.json', [{ permissions: [] }, { identifier: 'p' }, { identifier: 'r', remote: {}, permissions: [] }, { identifier: 'e', permissions: [{ allow: [] }] }]])
    assert.deepEqual(
      r.problems.map((p) => [p.kind, p.capability, p.field]),
      [
        ['missing-field', '#0', 'identifier'],
        ['missing-field', 'p', 'permissions'],
        ['missing-field', 'r', 'remote.urls'],
        ['missing-field', 'e', 'permissions[0].identifier'],
      ],
    )
    assert.match(r.problems[0]!.message, /missing field `identifier`/)
  })

  test('invalid-platform: spellings are exact', () => {
    const r = check(['p.json', { identifier: 'p', platforms: ['macos', 'iOS', 'Windows', 'ios', 'linux'], permissions: [] }])
    assert.deepEqual(r.problems.map((p) => [p.kind, p.field]), [['invalid-platform', 'platforms[0]'], ['invalid-platform', 'platforms[2]'], ['invalid-platform', 'platforms[3]']])
    assert.match(r.problems[0]!.message, /unknown variant `macos`/)
    assert.match(r.problems[0]!.expected!, /one of `macOS`, `windows`, `linux`, `android`, `iOS`/)
  })

  test('invalid-permission-identifier: every rule of the grammar', () => {
    const ids = ['tauri-plugin-x:default', '', 'a'.repeat(117), 'Bad_id', '-lead', 'a--b', 'a-:b', 'a:-b', 'x:y:z', 'core:', 'abc-', 'dot.ted', 'sp ace']
    const r = check(['i.json', { identifier: 'i', permissions: ids }])
    const messages = r.problems.map((p) => p.message)
    assert.deepEqual(kinds(r.problems), ids.map(() => 'invalid-permission-identifier'))
    assert.match(messages[0]!, /cannot start with tauri-plugin-/)
    assert.match(messages[1]!, /cannot be empty/)
    assert.match(messages[2]!, /cannot be longer than 116, found 117/)
    for (const i of [3, 4, 5, 6, 7, 11, 12]) assert.match(messages[i]!, /can only include lowercase ASCII/, ids[i])
    assert.match(messages[8]!, /single separator ':'/)
    assert.match(messages[9]!, /prefix without a base/)
    assert.match(messages[10]!, /trailing hyphen/)
    // Accepted: core ids with several colons; uppercase passes the grammar (as in the reference).
    const ok = check(['ok.json', { identifier: 'ok', permissions: ['core:window:allow-set-title', 'core:default', 'allow-greet'] }])
    assert.deepEqual(ok.problems, [])
    assert.equal(identifierError('preFix:base'), undefined)
    assert.equal(identifierError(`${'a'.repeat(51)}:${'b'.repeat(64)}`), undefined, '116 bytes is the limit')
  })

  test('duplicate-permission: unique items by deep equality (a string and an object are different items)', () => {
    const r = check(['d.json', { identifier: 'd', permissions: ['core:default', 'core:default', { identifier: 'opener:default', allow: [{ url: 'a' }] }, { allow: [{ url: 'a' }], identifier: 'opener:default' }, { identifier: 'core:default' }] }])
    assert.deepEqual(r.problems.map((p) => [p.kind, p.field]), [['duplicate-permission', 'permissions[1]'], ['duplicate-permission', 'permissions[3]']])
    assert.match(r.problems[0]!.message, /duplicate of permissions\[0\]/)
  })

  test('unknown-plugin and unknown-permission (core ids need the core: prefix)', () => {
    const r = check(['u.json', { identifier: 'u', permissions: ['window:allow-close', 'core:window:allow-fly', 'opener:allow-everything', 'greet', 'allow-greet', 'core:nothing:default'] }])
    assert.deepEqual(r.problems.map((p) => [p.kind, p.field]), [
      ['unknown-plugin', 'permissions[0]'],
      ['unknown-permission', 'permissions[1]'],
      ['unknown-permission', 'permissions[2]'],
      ['unknown-permission', 'permissions[3]'],
      ['unknown-plugin', 'permissions[5]'],
    ])
    assert.match(r.problems[0]!.message, /unknown ACL for window/)
    assert.match(r.problems[1]!.message, /unknown permission allow-fly for core:window/)
    assert.match(r.problems[3]!.message, /unknown permission greet for app manifest/)
    assert.match(r.problems[1]!.expected!, /core:window:allow-/)
  })

  test('unknown-permission: a set member that does not exist', () => {
    const broken = builtinManifests(appManifest({ commands: ['greet'], sets: [{ identifier: 'bundle', permissions: ['allow-greet', 'allow-missing'] }] }))
    const r = checkCapabilityFiles([{ file: 's.json', text: JSON.stringify({ identifier: 's', permissions: ['bundle'] }) }], broken)
    assert.deepEqual(kinds(r.problems), ['unknown-permission'])
    assert.match(r.problems[0]!.message, /permission allow-missing not found from set bundle/)
  })

  test('duplicate-capability: within a list and across files', () => {
    const r = check(['a.json', [{ identifier: 'main', permissions: [] }, { identifier: 'main', permissions: [] }]], ['b.toml', 'identifier = "main"\npermissions = []\n'])
    assert.deepEqual(r.problems.map((p) => [p.kind, p.file, p.field]), [['duplicate-capability', 'a.json', 'identifier'], ['duplicate-capability', 'b.toml', 'identifier']])
    assert.match(r.problems[0]!.message, /capability with identifier `main` already exists \(earlier in this file\)/)
    assert.match(r.problems[1]!.message, /already exists \(in a\.json\)/)
  })

  test('every problem at once, each located: file, capability, field, expected', () => {
    const r = check(
      ['one.json', { identifier: 'one', windows: ['main'], platforms: ['macos'], permissions: ['core:default', 'core:default', 'nope:x', 'Bad_id'] }],
      ['two.toml', '[[capabilities]]\nidentifier = "one"\npermissions = ["allow-greet", "opener:allow-fly"]\n'],
    )
    assert.deepEqual(kinds(r.problems).sort(), ['duplicate-capability', 'duplicate-permission', 'invalid-permission-identifier', 'invalid-platform', 'unknown-permission', 'unknown-plugin'])
    for (const p of r.problems) {
      assert.ok(p.file && p.capability && p.field && p.expected, `located: ${JSON.stringify(p)}`)
      assert.ok(formatProblem(p).startsWith(`${p.file}: capability "${p.capability}": ${p.field}: `))
    }
  })
})
