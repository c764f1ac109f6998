// Which git config changes a sandboxed command may make (git-config-change.ts): read as git reads
// them, an allowlist of what ordinary git commands write, anything that names a program refused.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { gitConfigEntries, refusedGitConfigChange } from '../../../extensions/tools-terminal/git-config-change.ts'

const BASE = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n'
const refused = (added: string, before = BASE) => refusedGitConfigChange(Buffer.from(before), Buffer.from(before + added), 'git')

test('git config change: settings that make git run a program are refused, in any spelling git reads', () => {
  const cases: Array<[string, string]> = [
    ['[core]\n\thooksPath = /tmp/hooks\n', 'core.hookspath'],
    ['[CORE]\n  FSMonitor = "touch pwned"\n', 'core.fsmonitor'],
    ['[core]\n\tsshCommand = sh -c x\n', 'core.sshcommand'],
    ['[core]\n\tpager = evil\n', 'core.pager'],
    ['[alias]\n\tst = !touch pwned\n', 'alias.st'],
    ['[alias]\n\tco = checkout\n', 'alias.co'],
    ['[include]\n\tpath = /tmp/more\n', 'include.path'],
    ['[includeIf "gitdir:/"]\n\tpath = /tmp/more\n', 'includeif.gitdir:/.path'],
    ['[filter "x"]\n\tclean = evil\n', 'filter.x.clean'],
    ['[diff "x"]\n\ttextconv = evil\n', 'diff.x.textconv'],
    ['[diff]\n\texternal = evil\n', 'diff.external'],
    ['[credential]\n\thelper = !evil\n', 'credential.helper'],
    ['[gpg]\n\tprogram = evil\n', 'gpg.program'],
    ['[protocol "ext"]\n\tallow = always\n', 'protocol.ext.allow'],
    ['[remote "origin"]\n\turl = ext::sh -c evil\n', 'remote.origin.url'],
    ['[remote "origin"]\n\tuploadpack = evil\n', 'remote.origin.uploadpack'],
    ['[remote "origin"]\n\tvcs = evil\n', 'remote.origin.vcs'],
    ['[submodule "m"]\n\tupdate = !evil\n', 'submodule.m.update'],
    ['[trailer "x"]\n\tcommand = evil\n', 'trailer.x.command'],
    ['[sequence]\n\teditor = evil\n', 'sequence.editor'],
    ['[lfs "customtransfer.x"]\n\tpath = evil\n', 'lfs.customtransfer.x.path'],
    ['[init]\n\ttemplateDir = /tmp/t\n', 'init.templatedir'],
    // A subsection may hold `=` and `.`: the key is what git reads, not text up to the first `=`.
    ['[remote "a.url=b"]\n\tuploadpack = touch pwned\n', 'remote.a.url=b.uploadpack'],
    ['[submodule "a.url=q"]\n\tupdate = !touch pwned\n', 'submodule.a.url=q.update'],
    ['[lfs "customtransfer.x.access=y"]\n\tpath = evil\n', 'lfs.customtransfer.x.access=y.path'],
    // Settings that write or read a file, or reach a program, for whoever runs git next.
    ['[gc]\n\trecentObjectsHook = touch pwned\n', 'gc.recentobjectshook'],
    ['[core]\n\tworktree = /root\n', 'core.worktree'],
    ['[http]\n\tcookieFile = ~/.bashrc\n', 'http.cookiefile'],
    ['[http]\n\tproxy = http://evil:8080\n', 'http.proxy'],
    ['[branch "main"]\n\tremote = ext::sh -c evil\n', 'branch.main.remote'],
    ['[branch "main"]\n\tmergeOptions = -s evil\n', 'branch.main.mergeoptions'],
    ['[pull]\n\ttwohead = evil\n', 'pull.twohead'],
    ['[commit]\n\ttemplate = ~/.ssh/id_rsa\n', 'commit.template'],
    ['[core]\n\tattributesFile = /tmp/attrs\n', 'core.attributesfile'],
    ['[submodule "m"]\n\turl = ext::sh -c evil\n', 'submodule.m.url'],
  ]
  for (const [added, key] of cases) assert.deepEqual(refused(added), [key], added)
  // A changed value is a new entry: an allowed key moved to a helper URL is refused too.
  const origin = '[remote "origin"]\n\turl = https://example.com/x.git\n'
  assert.deepEqual(refusedGitConfigChange(Buffer.from(BASE + origin), Buffer.from(BASE + origin.replace('https://', 'evil::https://')), 'git'), ['remote.origin.url'])
})

test('git config change: a file git cannot read, or no git to read it, is refused as a whole', () => {
  assert.match(refused('[core\n\tfsmonitor = x\n')[0]!, /a file git cannot read/)
  assert.match(refusedGitConfigChange(Buffer.from(BASE), Buffer.from(BASE + '[user]\n\tname = x\n'))[0]!, /git was not found on PATH/)
})

test('git config change: what ordinary git commands write passes, and removing settings passes', () => {
  const ordinary = [
    '[remote "origin"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
    '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n\tvscode-merge-base = origin/main\n',
    '[user]\n\temail = me@example.com\n\tname = Me\n',
    '[submodule "lib"]\n\turl = ../lib.git\n\tactive = true\n\tupdate = rebase\n',
    '[pull]\n\trebase = true\n[push]\n\tautoSetupRemote = true\n[init]\n\tdefaultBranch = main\n',
    '[core]\n\tsparseCheckout = true\n[extensions]\n\tworktreeConfig = true\n[lfs]\n\trepositoryformatversion = 0\n',
    '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic x\n',
  ]
  for (const added of ordinary) assert.deepEqual(refused(added), [], added)
  assert.deepEqual(refusedGitConfigChange(Buffer.from(BASE + '[core]\n\thooksPath = .githooks\n'), Buffer.from(BASE), 'git'), [], 'a removal')
  assert.deepEqual(refusedGitConfigChange(undefined, Buffer.from(BASE), 'git'), [], 'what git init writes')
  assert.deepEqual(gitConfigEntries(Buffer.from('[Remote "Up"]\n\tURL = x\n[core]\n\tbare\n')), [['remote.Up.url', 'x'], ['core.bare', undefined]], 'as git reads it: subsection as written, a bare key without a value')
})
