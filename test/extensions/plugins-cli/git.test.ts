// `agent plugins install <git url>` through npm's git support with real git (a local repository, no
// network), scripts off, then `remove`.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { jsonOf } from '../../helpers/agent-process.ts'
import { pluginCopy, pluginsWorld, renamed, type PluginsWorld } from './helpers.ts'

describe('agent plugins install (git)', () => {
  let w: PluginsWorld
  before(() => {
    w = pluginsWorld()
  })
  after(() => w.cleanup())

  it('installs from a git URL (npm git support, real git)', async () => {
    const repo = pluginCopy(w.work, 'git-plugin', renamed('agent-plugin-git', 'git-plugin', 'git_plugin_tool'))
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } })
    git('init', '-q')
    git('add', '-A')
    git('commit', '-qm', 'plugin')
    const run = await w.agent('plugins', 'install', `git+file://${repo}`, '--json')
    assert.equal(run.code, 0, run.stderr)
    const doc = jsonOf(run)
    assert.equal(doc.kind, 'git')
    assert.deepEqual(doc.tools, ['git_plugin_tool'])
    assert.equal(existsSync(w.marker), false, 'git installs run no prepare script either')
    const removed = await w.agent('plugins', 'remove', 'git-plugin')
    assert.equal(removed.code, 0, removed.stderr)
    assert.equal(w.deps()['agent-plugin-git'], undefined)
  })
})
