// `-w`: the worktree is made, inspected and removed without running the repository's own hooks or
// core.fsmonitor (the repository may have come with the project).

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { makeTempHome } from 'agent/sdk/testing'
import { createWorktree } from '../../../extensions/chat-cli/worktree.ts'

const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' }
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env }).trim()

/** A repository whose hooks and fsmonitor each leave a marker file in `markers`. */
function armedRepo(t: { after(fn: () => void): void }) {
  const repo = realpathSync(makeTempHome('agent-wt-repo-'))
  const markers = realpathSync(makeTempHome('agent-wt-markers-'))
  t.after(() => execFileSync('rm', ['-rf', repo, markers]))
  git(repo, 'init', '-q')
  writeFileSync(join(repo, 'a.txt'), 'a\n')
  git(repo, 'add', 'a.txt')
  git(repo, 'commit', '-qm', 'init')
  for (const hook of ['post-checkout', 'reference-transaction', 'post-index-change', 'post-commit']) {
    writeFileSync(join(repo, '.git', 'hooks', hook), `#!/bin/sh\ntouch '${join(markers, hook)}'\n`, { mode: 0o755 })
  }
  const fsmonitor = join(repo, '.git', 'fsmonitor.sh')
  writeFileSync(fsmonitor, `#!/bin/sh\ntouch '${join(markers, 'fsmonitor')}'\nexit 1\n`, { mode: 0o755 })
  git(repo, 'config', 'core.fsmonitor', fsmonitor)
  // Armed: the repository's own git runs both.
  git(repo, 'status', '--porcelain')
  git(repo, 'checkout', '-q', '-b', 'armed')
  assert.ok(existsSync(join(markers, 'fsmonitor')) && existsSync(join(markers, 'post-checkout')), readdirSync(markers).join(' '))
  execFileSync('rm', ['-f', ...readdirSync(markers).map((m) => join(markers, m))])
  return { repo, markers }
}

test('-w makes, inspects and removes a worktree without running the repository’s hooks or fsmonitor', async (t) => {
  const { repo, markers } = armedRepo(t)
  const worktree = await createWorktree(repo)
  assert.equal(readFileSync(join(worktree.path, 'a.txt'), 'utf8'), 'a\n', 'the worktree is checked out')
  assert.match(git(repo, 'worktree', 'list'), /\.worktrees\/agent-/)
  assert.deepEqual(readdirSync(markers), [], 'no hook nor fsmonitor ran making it')
  assert.match(await worktree.finish(), /had no changes and was removed/)
  assert.ok(!existsSync(worktree.path))
  assert.deepEqual(readdirSync(markers), [], 'nor inspecting and removing it')
})

test('-w: a changed worktree is still seen as changed and kept (status works without fsmonitor)', async (t) => {
  const { repo, markers } = armedRepo(t)
  const worktree = await createWorktree(repo)
  writeFileSync(join(worktree.path, 'a.txt'), 'changed\n')
  assert.match(await worktree.finish(), /worktree kept: .*\(branch agent\//)
  assert.ok(existsSync(worktree.path))
  assert.deepEqual(readdirSync(markers), [])
})
