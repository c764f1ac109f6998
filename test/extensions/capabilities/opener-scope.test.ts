// Opener scopes: URL globs on the raw string, `app` in both tests, deny over allow; path entries
// with base-directory variables (including $APP and $LOG), a literal `/` and leading dot, `..`.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { appMatches, checkPathScope, checkUrlScope, defaultBaseDirectories, expandPathEntry, parseUserDirs, PATH_VARIABLES, type BaseDirectories } from 'agent/sdk'

const scope = (allow: unknown[], deny: unknown[] = []) => ({ allow, deny })

describe('URL entries', () => {
  test('globs on the raw URL: * crosses / ? # :, no normalisation, case-sensitive', () => {
    const s = scope([{ url: 'https://*' }, { url: 'https://example.com/docs/*' }])
    assert.ok(checkUrlScope('https://a.b/c?d#e', undefined, s).allowed)
    assert.ok(!checkUrlScope('HTTPS://x.com', undefined, s).allowed)
    const only = scope([{ url: 'https://example.com/*' }])
    assert.ok(checkUrlScope('https://example.com/a/b', undefined, only).allowed)
    assert.ok(!checkUrlScope('https://example.com', undefined, only).allowed, 'the prefix needs its slash')
  })
  test('an empty allow list allows nothing; path entries are ignored for URLs', () => {
    assert.equal(checkUrlScope('https://x.com', undefined, scope([])).reason, 'Not allowed to open url https://x.com: no allowed url entry matches')
    assert.ok(!checkUrlScope('https://x.com', undefined, scope([{ path: '**' }])).allowed)
  })
  test('deny wins over allow', () => {
    const s = scope([{ url: 'https://*' }], [{ url: 'https://evil.example/*' }])
    assert.ok(checkUrlScope('https://good.example/x', undefined, s).allowed)
    const v = checkUrlScope('https://evil.example/x', undefined, s)
    assert.equal(v.allowed, false)
    assert.match(v.reason, /^Not allowed to open url https:\/\/evil\.example\/x: denied by/)
  })
  test('app: absent = default application only, true = any, false = never, a string = exactly that', () => {
    assert.ok(appMatches(undefined, undefined) && appMatches(null, undefined) && !appMatches(undefined, 'firefox'))
    assert.ok(appMatches(true, 'firefox') && appMatches(true, undefined))
    assert.ok(!appMatches(false, undefined) && !appMatches(false, 'x'))
    assert.ok(appMatches('firefox', 'firefox') && !appMatches('firefox', 'chrome') && !appMatches('firefox', undefined))
    const defaults = scope([{ url: 'https://*' }])
    assert.match(checkUrlScope('https://x.com', 'firefox', defaults).reason, /with firefox/)
    assert.ok(checkUrlScope('https://x.com', 'firefox', scope([{ url: 'https://*', app: 'firefox' }])).allowed)
  })
  test('app is part of the deny test too: a deny without app does not block a call with one', () => {
    const s = scope([{ url: 'https://*', app: true }], [{ url: 'https://blocked.example/*' }])
    assert.ok(!checkUrlScope('https://blocked.example/x', undefined, s).allowed)
    assert.ok(checkUrlScope('https://blocked.example/x', 'firefox', s).allowed)
  })
  test('a deny pattern that does not parse refuses (fail closed)', () => {
    assert.ok(!checkUrlScope('https://x.com', undefined, scope([{ url: 'https://*' }], [{ url: 'https://[' }])).allowed)
  })
})

describe('path entries', () => {
  const dirs: BaseDirectories = { HOME: '/home/u', APP: '/home/u/.agent', APPCONFIG: '/home/u/.agent', LOG: '/home/u/.agent/logs', APPLOG: '/home/u/.agent/logs', DOWNLOAD: '/home/u/Downloads', TEMP: '/tmp' }
  const opts = { dirs }
  test('variables expand only as a whole first component; unknown ones stay literal; unresolvable ones drop the entry', () => {
    assert.equal(expandPathEntry('$HOME/notes/**', dirs), '/home/u/notes/**')
    assert.equal(expandPathEntry('$APP/*.json', dirs), '/home/u/.agent/*.json')
    assert.equal(expandPathEntry('$LOG/**', dirs), '/home/u/.agent/logs/**')
    assert.equal(expandPathEntry('$HOMEx/a', dirs), '$HOMEx/a')
    assert.equal(expandPathEntry('/x/$HOME/a', dirs), '/x/$HOME/a')
    assert.equal(expandPathEntry('$NOPE/a', dirs), '$NOPE/a')
    assert.equal(expandPathEntry('$AUDIO/*', dirs), undefined, 'no music directory here')
    assert.equal(expandPathEntry('$HOME/a/../../etc/*', dirs), '/home/u/a/etc/*', 'later .. components are dropped')
    assert.equal(expandPathEntry('$HOME', dirs), '/home/u')
    assert.equal(expandPathEntry('$HOME/[x]', { HOME: '/odd[1]' }), '/odd[[]1[]]/[x]', 'the base directory is literal, the rest a glob')
    assert.equal(PATH_VARIABLES.length, 25)
    assert.ok(PATH_VARIABLES.includes('APP') && PATH_VARIABLES.includes('LOG'))
  })
  test('* stays inside a component, ** crosses; dotfiles need a literal dot', () => {
    const s = scope([{ path: '$HOME/*' }, { path: '$DOWNLOAD/**' }])
    assert.ok(checkPathScope('/home/u/a.txt', undefined, s, opts).allowed)
    assert.ok(!checkPathScope('/home/u/sub/a.txt', undefined, s, opts).allowed)
    assert.ok(checkPathScope('/home/u/Downloads/a/b/c.pdf', undefined, s, opts).allowed)
    assert.ok(!checkPathScope('/home/u/.ssh', undefined, s, opts).allowed, '$HOME/* does not match a dotfile')
    assert.ok(!checkPathScope('/home/u/Downloads/.hidden/x', undefined, s, opts).allowed)
    assert.ok(checkPathScope('/home/u/.bashrc', undefined, scope([{ path: '$HOME/.*' }]), opts).allowed)
    assert.ok(checkPathScope('/home/u/.ssh', undefined, s, { dirs, requireLiteralLeadingDot: false }).allowed, 'Windows rule')
  })
  test('$APP and $LOG scopes (spec variables) grant the agent home and its logs', () => {
    const s = scope([{ path: '$LOG/*' }, { path: '$APP/notes/**' }])
    assert.ok(checkPathScope('/home/u/.agent/logs/agent.log', undefined, s, opts).allowed)
    assert.ok(checkPathScope('/home/u/.agent/notes/x/y.md', undefined, s, opts).allowed)
    assert.ok(!checkPathScope('/home/u/.agent/config.yaml', undefined, s, opts).allowed)
  })
  test('deny over allow, whatever the app; .. in the asked path is resolved first', () => {
    const s = scope([{ path: '$HOME/**' }], [{ path: '$HOME/secret/**' }])
    assert.ok(checkPathScope('/home/u/docs/a', undefined, s, opts).allowed)
    assert.match(checkPathScope('/home/u/secret/key', undefined, s, opts).reason, /^Not allowed to open path \/home\/u\/secret\/key: denied by/)
    assert.ok(!checkPathScope('/home/u/docs/../secret/key', undefined, s, opts).allowed)
    assert.ok(!checkPathScope('/home/u/../../etc/passwd', undefined, scope([{ path: '$HOME/**' }]), opts).allowed)
    assert.ok(!checkPathScope('relative/a', undefined, s, opts).allowed)
  })
  test('some allowed path entry must accept the application asked for', () => {
    const s = scope([{ path: '$HOME/**' }, { path: '/nowhere', app: 'gimp' }])
    assert.ok(checkPathScope('/home/u/a.png', undefined, s, opts).allowed)
    assert.ok(checkPathScope('/home/u/a.png', 'gimp', s, opts).allowed, 'the app may come from another allowed entry')
    assert.match(checkPathScope('/home/u/a.png', 'vim', s, opts).reason, /no allowed path entry accepts vim/)
  })
})

describe('base directories', () => {
  test('Linux: XDG variables, user dirs, and the agent home for the $APP… variables', () => {
    const userDirs = parseUserDirs('# comment\nXDG_DOWNLOAD_DIR="$HOME/Dl"\nXDG_MUSIC_DIR="$HOME/"\nXDG_DOCUMENTS_DIR="/data/docs"\n', '/home/u')
    assert.deepEqual(userDirs, { XDG_DOWNLOAD_DIR: '/home/u/Dl', XDG_DOCUMENTS_DIR: '/data/docs' })
    const d = defaultBaseDirectories({ platform: 'linux', env: { XDG_CONFIG_HOME: '/cfg', XDG_RUNTIME_DIR: '/run/user/1' }, home: '/home/u', tmp: '/tmp', appHome: '/home/u/.agent', resourceDir: '/opt/agent', userDirs })
    assert.equal(d.CONFIG, '/cfg')
    assert.equal(d.CACHE, '/home/u/.cache')
    assert.equal(d.DATA, '/home/u/.local/share')
    assert.equal(d.FONT, '/home/u/.local/share/fonts')
    assert.equal(d.RUNTIME, '/run/user/1')
    assert.equal(d.DOWNLOAD, '/home/u/Dl')
    assert.equal(d.AUDIO, undefined)
    assert.equal(d.DESKTOP, '/home/u/Desktop')
    assert.equal(d.APP, '/home/u/.agent')
    assert.equal(d.APPDATA, '/home/u/.agent')
    assert.equal(d.LOG, '/home/u/.agent/logs')
    assert.equal(d.APPLOG, '/home/u/.agent/logs')
    assert.equal(d.APPCACHE, '/home/u/.agent/cache')
    assert.equal(d.RESOURCE, '/opt/agent')
    const mac = defaultBaseDirectories({ platform: 'darwin', env: {}, home: '/Users/u', tmp: '/tmp', appHome: '/Users/u/.agent' })
    assert.equal(mac.DATA, '/Users/u/Library/Application Support')
    assert.equal(mac.VIDEO, '/Users/u/Movies')
  })
})
