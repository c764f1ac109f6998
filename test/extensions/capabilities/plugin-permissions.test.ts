// Plugin permission files: the example plugin folder loaded and resolved (sets, a default, generated
// allow-/deny-, platform-limited and scope-only permissions, a folder adding to the built-in opener),
// every problem located by file, line and field, a bad pattern inside a set a default includes, the
// `permissions` listing and the schema, and permissions contributed by an extension.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Validator } from '@cfworker/json-schema'
import { buildManifests, checkCapabilityFiles, contributePermissions, coreManifests, defineExtension, formatProblem, openerManifest, ResolvedAcl, type AccessRequest, type Target } from 'agent/sdk'
import { makeTempHome } from 'agent/sdk/testing'
import { checkFiles, currentManifests, listCapabilityFiles } from '../../../extensions/capabilities/acl-state.ts'
import { createCommandLayer } from '../../../extensions/capabilities/command-layer.ts'
import { runAgent } from '../../helpers/agent-process.ts'
import { startAgent } from './harness.ts'

const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'capabilities-plugin')
const EXAMPLE_CAPS = join(EXAMPLE, 'capabilities')

function loadExample(platform: Target = 'linux') {
  const loaded = currentManifests(createCommandLayer(), [EXAMPLE_CAPS])
  const checked = checkFiles(listCapabilityFiles(EXAMPLE_CAPS), loaded)
  return { loaded, checked, acl: new ResolvedAcl(checked.capabilities, { platform, manifests: loaded.manifests }) }
}
const call = (command: string, window: string, webview?: string): AccessRequest => ({ command, window, webview, origin: { kind: 'local' } })

/** A temporary capabilities folder with plugin files. */
function folder(t: TestContext, files: Record<string, string>): string {
  const dir = makeTempHome('agent-cap-plugins-')
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}

describe('the example plugin folder', () => {
  test('loads without a problem and resolves: default, sets, generated permissions, another plugin\'s permission', () => {
    const { loaded, checked, acl } = loadExample()
    assert.deepEqual([...loaded.problems, ...checked.problems].map(formatProblem), [])
    assert.deepEqual(checked.warnings, [])
    assert.ok(acl.check(call('plugin:notes-sync|list_notes', 'notes')).allowed)
    assert.ok(acl.check(call('plugin:notes-sync|read_note', 'notes')).allowed)
    assert.ok(!acl.check(call('plugin:notes-sync|push_notes', 'notes')).allowed, 'push is only in the sync set')
    assert.ok(acl.check(call('plugin:notes-sync|push_notes', 'x', 'sync-panel')).allowed)
    const open = acl.check(call('plugin:opener|open_url', 'x', 'sync-panel'))
    assert.ok(open.allowed, 'opener:allow-sync-pages comes from plugins/opener/permissions')
    assert.deepEqual(open.commandScope.allow, [{ url: 'https://sync.example.com/help/*' }, { url: 'https://sync.example.com/account/*' }])
    assert.ok(!acl.check(call('plugin:opener|open_url', 'notes')).allowed)
  })

  test('a scope-only permission is the plugin\'s global scope: every command of it receives it, in every window', () => {
    const { acl } = loadExample()
    const expected = { allow: [{ path: '$DOCUMENT/notes/**' }], deny: [{ path: '$DOCUMENT/notes/.trash/**' }] }
    assert.deepEqual(acl.check(call('plugin:notes-sync|read_note', 'notes')).globalScope, expected)
    assert.deepEqual(acl.check(call('plugin:notes-sync|push_notes', 'x', 'sync-panel')).scopes, expected)
    assert.deepEqual(acl.globalScope('opener'), { allow: [], deny: [] }, 'another plugin\'s global scope is untouched')
  })

  test('platform-limited permissions apply on their platforms only', () => {
    const linux = loadExample('linux').acl
    const mac = loadExample('macOS').acl
    const ios = loadExample('iOS').acl
    assert.ok(!linux.check(call('plugin:notes-sync|reveal_note', 'notes')).allowed)
    assert.ok(mac.check(call('plugin:notes-sync|reveal_note', 'notes')).allowed)
    assert.ok(linux.check(call('plugin:notes-sync|push_notes', 'x', 'sync-panel')).allowed)
    const pushOnPhone = ios.check(call('plugin:notes-sync|push_notes', 'x', 'sync-panel'))
    assert.equal(pushOnPhone.allowed, false)
    assert.match(pushOnPhone.reason, /explicitly denied by capability "notes" \(permission notes-sync:deny-push-on-mobile\)/)
  })

  test('the CLI: check --project, permissions (text and --json), schema with the plugin identifiers', async (t) => {
    const home = makeTempHome('agent-cap-plugins-home-')
    t.after(() => rmSync(home, { recursive: true, force: true }))
    const [check, listing, one, unknown, schema] = await Promise.all([
      runAgent(['capabilities', 'check', '--project', EXAMPLE], { home }),
      runAgent(['capabilities', 'permissions', '--project', EXAMPLE, '--json'], { home }),
      runAgent(['capabilities', 'permissions', 'notes-sync', '--project', EXAMPLE], { home }),
      runAgent(['capabilities', 'permissions', 'notes-synk', '--project', EXAMPLE, '--json'], { home }),
      runAgent(['capabilities', 'schema', '--project', EXAMPLE], { home }),
    ])
    assert.equal(check.code, 0, check.stdout + check.stderr)
    assert.match(check.stdout, /^ok: 2 capabilities in 2 files/)
    assert.equal(listing.code, 0, listing.stderr)
    const doc = JSON.parse(listing.stdout)
    assert.deepEqual(Object.keys(doc), ['plugins', 'problems', 'warnings'])
    const plugin = doc.plugins.find((p: any) => p.plugin === 'notes-sync')
    assert.deepEqual(plugin.default.permissions, ['allow-list-notes', 'allow-read-note', 'notes-folder'])
    const folderPermission = plugin.permissions.find((p: any) => p.identifier === 'notes-sync:notes-folder')
    assert.deepEqual([folderPermission.global_scope, folderPermission.source.line, folderPermission.source.file.endsWith('scopes.json')], [true, 3, true])
    assert.deepEqual(plugin.permissions.find((p: any) => p.identifier === 'notes-sync:allow-reveal-in-finder').platforms, ['macOS'])
    const opener = doc.plugins.find((p: any) => p.plugin === 'opener')
    assert.equal(opener.sources[0], 'built-in')
    assert.ok(opener.permissions.some((p: any) => p.identifier === 'opener:allow-sync-pages'))
    assert.match(one.stdout, /^notes-sync — from /)
    assert.match(one.stdout, /notes-sync:notes-folder: no commands: a global scope/)
    assert.equal(unknown.code, 2)
    assert.match(JSON.parse(unknown.stdout).error.message, /no plugin "notes-synk" \(did you mean notes-sync\?\)/)
    const validator = new Validator(JSON.parse(schema.stdout), '2020-12', false)
    assert.ok(validator.validate({ identifier: 'x', permissions: ['notes-sync:sync', 'opener:allow-sync-pages'] }).valid)
    assert.ok(!validator.validate({ identifier: 'x', permissions: ['notes-sync:teleport'] }).valid)
  })
})

describe('problems in permission files: file, line, field', () => {
  test('every problem of a TOML file at once, and unknown fields as warnings', (t) => {
    const dir = folder(t, {
      'plugins/acme/permissions/bad.toml': [
        '[default]', // 1
        'permissions = ["allow-ping"]', // 2
        '', // 3
        '[[permission]]', // 4
        'description = "no identifier"', // 5
        '', // 6
        '[[permission]]', // 7
        'identifier = "allow-Bad_Name"', // 8
        '', // 9
        '[[permission]]', // 10
        'identifier = "allow-ping"', // 11
        'commands.allow = ["ping", "Not-A-Command"]', // 12
        'platforms = ["macos"]', // 13
        'platfrom = "linux"', // 14
        '', // 15
        '[[set]]', // 16
        'identifier = "pings"', // 17
        'permissions = ["allow-ping"]', // 18
      ].join('\n'),
      'plugins/acme/permissions/more.json': '{\n  "default": { "permissions": [] },\n  "permission": [\n    { "identifier": "allow-pong", "commands": { "allow": ["pong"] } },\n    { "identifier": "allow-pong", "commands": { "allow": ["pong"] } }\n  ]\n}\n',
    })
    const loaded = currentManifests(createCommandLayer(), [dir])
    const rows = loaded.problems.map((p) => [p.file.slice(dir.length + 1), p.line, p.field, p.kind])
    assert.deepEqual(rows, [
      ['plugins/acme/permissions/bad.toml', 4, 'permission[0].identifier', 'missing-field'],
      ['plugins/acme/permissions/bad.toml', 8, 'permission[1].identifier', 'invalid-permission-identifier'],
      ['plugins/acme/permissions/bad.toml', 12, 'permission[2].commands.allow[1]', 'parse'],
      ['plugins/acme/permissions/bad.toml', 13, 'permission[2].platforms[0]', 'invalid-platform'],
      ['plugins/acme/permissions/bad.toml', 16, 'set[0].description', 'missing-field'],
      ['plugins/acme/permissions/more.json', 5, 'permission[1].identifier', 'duplicate-permission'],
      ['plugins/acme/permissions/more.json', 2, undefined, 'duplicate-permission'],
      ['plugins/acme/permissions/bad.toml', 1, 'default.permissions', 'unknown-permission'],
    ])
    assert.match(loaded.problems[2]!.message, /invalid command name "Not-A-Command"/)
    assert.match(loaded.problems[6]!.message, /acme:default is already defined in .*bad\.toml:1/)
    assert.match(loaded.problems[7]!.message, /permission allow-ping not found from set acme:default/)
    assert.deepEqual(loaded.warnings.map((w) => [w.line, w.field, w.message]), [[14, 'permission[2].platfrom', 'unknown field `platfrom` is ignored (did you mean `platforms`?)']])
    assert.match(formatProblem(loaded.problems[0]!), /bad\.toml:4: permission\[0\]\.identifier: missing field `identifier`/)
    // A capability check reports them too, and fails.
    assert.ok(checkFiles([], loaded).problems.length === loaded.problems.length)
  })

  test('syntax errors, reserved plugin names, built-in identifiers redefined, a file of another format', (t) => {
    const dir = folder(t, {
      'plugins/acme/permissions/broken.json': '{\n  "permission": [\n    { "identifier": "x", }\n  ]\n}\n',
      'plugins/window/permissions/p.toml': '[[permission]]\nidentifier = "allow-x"\ncommands.allow = ["x"]\n',
      'plugins/opener/permissions/p.toml': '[[permission]]\nidentifier = "allow-open-url"\ncommands.allow = ["open_url"]\n[default]\npermissions = []\n',
      'plugins/acme/permissions/notes.yaml': 'ignored: true\n',
      'plugins/acme/permissions/schemas/schema.json': '{ "not": "a permission file" }',
      'plugins/acme/permissions/.hidden.toml': 'garbage',
    })
    const loaded = currentManifests(createCommandLayer(), [dir])
    assert.deepEqual(loaded.problems.map((p) => [p.file.slice(dir.length + 1), p.line, p.kind]), [
      ['plugins/acme/permissions/broken.json', undefined, 'parse'],
      ['plugins/window/permissions/p.toml', undefined, 'invalid-permission-identifier'],
      ['plugins/opener/permissions/p.toml', 1, 'duplicate-permission'],
      ['plugins/opener/permissions/p.toml', 4, 'duplicate-permission'],
    ])
    assert.match(loaded.problems[0]!.message, /failed to parse JSON: .* at line 3 column 26/)
    assert.match(loaded.problems[1]!.message, /plugin "window" is a core namespace/)
    assert.match(loaded.problems[2]!.message, /opener:allow-open-url is already defined in the built-in manifest/)
  })

  test('harmless look-alikes: a permission with only a description, null scopes and platforms, no default', (t) => {
    const dir = folder(t, {
      'plugins/acme/permissions/ok.toml': '[[permission]]\nidentifier = "nothing"\ndescription = "grants nothing"\n\n[[permission]]\nidentifier = "allow-ping"\ncommands.allow = ["ping"]\n',
      'plugins/acme/permissions/ok.json': '{"permission": [{"identifier": "allow-pong", "commands": {"allow": ["pong"], "deny": []}, "scope": {"allow": null, "deny": null}, "platforms": null}]}',
    })
    const loaded = currentManifests(createCommandLayer(), [dir])
    assert.deepEqual(loaded.problems, [])
    const r = checkCapabilityFiles([{ file: 'c.json', text: JSON.stringify({ identifier: 'c', windows: ['w'], permissions: ['acme:default', 'acme:nothing', 'acme:allow-pong'] }) }], loaded.manifests)
    assert.deepEqual(r.problems, [], '`default` of a plugin without one is accepted and grants nothing')
    const acl = new ResolvedAcl(r.capabilities, { platform: 'linux', manifests: loaded.manifests })
    assert.ok(acl.check(call('plugin:acme|pong', 'w')).allowed)
    assert.ok(!acl.check(call('plugin:acme|ping', 'w')).allowed)
  })
})

describe('a bad pattern inside a set that a default includes', () => {
  const files = (url: string) => ({
    'plugins/opener/permissions/docs.toml': `[[permission]]\nidentifier = "allow-docs"\ncommands.allow = ["open_url"]\n\n[[permission.scope.allow]]\nurl = "${url}"\n\n[[permission.scope.allow]]\nurl = "https://*"\n`,
    'plugins/acme/permissions/acme.toml': '[default]\npermissions = ["links"]\n\n[[set]]\nidentifier = "links"\ndescription = "links"\npermissions = ["opener:allow-docs"]\n',
  })
  const capability = { identifier: 'main', windows: ['main'], permissions: ['core:default', 'acme:default'] }

  test('the permission file, and every capability reaching it, fail check; the command is denied at run time', (t) => {
    const loaded = currentManifests(createCommandLayer(), [folder(t, files('https://docs.example/[x'))])
    assert.deepEqual(loaded.problems.map((p) => [p.line, p.permission, p.field]), [[5, 'opener:allow-docs', 'permission[0].scope.allow[0]']])
    assert.match(loaded.problems[0]!.message, /cannot be compiled: url: Pattern syntax error near position 21: invalid range pattern/)
    const r = checkCapabilityFiles([{ file: 'main.json', text: JSON.stringify(capability) }], loaded.manifests)
    assert.deepEqual(r.problems.map((p) => [p.file, p.capability, p.field, p.permission, p.kind]), [['main.json', 'main', 'permissions[1]', 'opener:allow-docs', 'parse']])
    assert.match(r.problems[0]!.message, /permission opener:allow-docs \(reached through acme:default\) \(defined in .*docs\.toml:1\) has a scope entry that cannot be compiled: scope\.allow\[0\]/)
    const decision = new ResolvedAcl(r.capabilities, { platform: 'linux', manifests: loaded.manifests }).check(call('plugin:opener|open_url', 'main'))
    assert.equal(decision.allowed, false)
    assert.match(decision.reason, /cannot be used/)
  })

  test('the same with a valid pattern: no problem, allowed, with the permission\'s scope', (t) => {
    const loaded = currentManifests(createCommandLayer(), [folder(t, files('https://docs.example/[x]'))])
    assert.deepEqual(loaded.problems, [])
    const r = checkCapabilityFiles([{ file: 'main.json', text: JSON.stringify(capability) }], loaded.manifests)
    assert.deepEqual(r.problems, [])
    const decision = new ResolvedAcl(r.capabilities, { platform: 'linux', manifests: loaded.manifests }).check(call('plugin:opener|open_url', 'main'))
    assert.ok(decision.allowed)
    assert.deepEqual(decision.scopes.allow, [{ url: 'https://docs.example/[x]' }, { url: 'https://*' }])
  })
})

describe('permissions contributed by extensions', () => {
  test('through the service: merged like files, refused when invalid, withdrawn', () => {
    const layer = createCommandLayer()
    const withdraw = layer.contributePermissions('pinger', 'acme', { commands: ['ping'], set: [{ identifier: 'all', description: 'all', permissions: ['allow-ping'] }] })
    assert.throws(() => layer.contributePermissions('pinger', 'acme', { permission: [{ identifier: 'Bad_Id' }] } as never), /extension "pinger": permissions of plugin "acme": .*Bad_Id/)
    assert.throws(() => layer.contributePermissions('pinger', 'menu', {}), /core namespace/)
    assert.throws(() => layer.contributePermissions('pinger', 'opener', { permission: [{ identifier: 'x', commands: { allow: ['open_url'] }, scope: { allow: [{ url: '[' }] } }] }), /cannot be compiled/)
    const loaded = currentManifests(layer, [])
    assert.deepEqual(loaded.problems, [])
    assert.deepEqual(loaded.manifests.get('acme')!.sources, ['extension pinger'])
    assert.ok(loaded.manifests.expand('acme:all').ok)
    withdraw()
    assert.equal(currentManifests(layer, []).manifests.get('acme'), undefined)
  })

  test('a contribution and a file defining the same identifier: a duplicate naming both', (t) => {
    const layer = createCommandLayer()
    layer.contributePermissions('pinger', 'acme', { commands: ['ping'] , permission: [{ identifier: 'pings', commands: { allow: ['ping'] } }] })
    const loaded = currentManifests(layer, [folder(t, { 'plugins/acme/permissions/p.toml': '[[permission]]\nidentifier = "pings"\ncommands.allow = ["ping"]\n' })])
    assert.deepEqual(loaded.problems.map((p) => [p.file, p.kind]), [['extension pinger', 'duplicate-permission']])
    assert.match(loaded.problems[0]!.message, /acme:pings is already defined in .*p\.toml:1/)
  })

  test('end to end: an extension contributes, a capability names it, the IPC endpoint decides', async (t) => {
    const pinger = defineExtension({
      name: 'pinger',
      dependsOn: ['capabilities'],
      setup(api) {
        contributePermissions(api, 'acme', { commands: ['ping', 'pong'], default: { permissions: ['allow-ping'] } })
      },
    })
    const agent = await startAgent(t, { 'main.json': { identifier: 'main', windows: ['main'], permissions: ['acme:default'] } }, { extensions: [pinger] })
    const token = await agent.token('main')
    const ping = await agent.invoke('plugin:acme|ping', {}, { token })
    assert.equal(ping.status, 501, 'allowed by the ACL; no extension implements it')
    const pong = await agent.invoke('plugin:acme|pong', {}, { token })
    assert.equal(pong.status, 403)
    assert.match(pong.body.error.message, /permissions that would: acme:allow-pong/)
  })
})

test('built-in manifests alone: buildManifests with no source changes nothing', () => {
  const built = buildManifests([...coreManifests(), openerManifest()], [])
  assert.deepEqual(built.problems, [])
  assert.equal(built.manifests.get('opener')!.sources![0], 'built-in')
})

test('plugin permission files hot-reload; a broken one keeps the previous capabilities', async (t) => {
  const agent = await startAgent(t, { 'main.json': { identifier: 'main', windows: ['main'], permissions: ['allow-greet'] } })
  const token = await agent.token('main')
  const status = async () => (await agent.invoke('plugin:acme|ping', {}, { token })).status
  const eventually = async (want: number, what: string) => {
    for (let i = 0; i < 100 && (await status()) !== want; i++) await new Promise((r) => setTimeout(r, 50))
    assert.equal(await status(), want, what)
  }
  assert.equal(await status(), 403)
  const permissions = join(agent.home, 'capabilities', 'plugins', 'acme', 'permissions')
  mkdirSync(permissions, { recursive: true })
  writeFileSync(join(permissions, 'acme.toml'), 'commands = ["ping"]\n[default]\npermissions = ["allow-ping"]\n')
  agent.writeCapability('main.json', { identifier: 'main', windows: ['main'], permissions: ['allow-greet', 'acme:default'] })
  await eventually(501, 'allowed once the plugin file and the capability are read (no extension implements it)')

  writeFileSync(join(permissions, 'acme.toml'), 'commands = ["ping"]\n[default]\npermissions = ["allow-pong"]\n')
  await new Promise((r) => setTimeout(r, 400))
  assert.equal(await status(), 501, 'the previous good set still applies')
  writeFileSync(join(permissions, 'acme.toml'), 'commands = ["ping"]\n[default]\npermissions = ["deny-ping"]\n')
  await eventually(403, 'the fixed file')
})
