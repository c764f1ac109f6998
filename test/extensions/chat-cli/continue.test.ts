// `agent chat` end to end, continued: a prompt piped on stdin, -c [name] and --resume <id|title>
// continuing stored sessions, and -w running a turn in a git worktree.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { chatBodies, setup } from './helpers.ts'

test('a piped prompt, then -c continues the latest session and --resume finds one by title', async (t) => {
  const { model, agent } = await setup(t)
  const piped = await agent(['chat'], { input: 'first question\n' })
  assert.equal(piped.code, 0, piped.stderr)
  assert.equal(piped.stdout, 'echo: first question\n')
  const cont = await agent(['chat', '-c', '-q', 'second question', '--json'])
  assert.equal(cont.code, 0, cont.stderr)
  const second = JSON.parse(cont.stdout)
  const sent = chatBodies(model)[1].messages.filter((m: any) => m.role !== 'system').map((m: any) => m.content)
  assert.deepEqual(sent, ['first question', 'echo: first question', 'second question'])
  const renamed = await agent(['sessions', 'rename', second.session_id, 'Budget review'])
  assert.equal(renamed.code, 0, renamed.stderr)
  await agent(['chat', '-q', 'unrelated'])
  const resumed = await agent(['chat', '--resume', 'Budget review', '-q', 'third', '--json'])
  assert.equal(resumed.code, 0, resumed.stderr)
  assert.equal(JSON.parse(resumed.stdout).session_id, second.session_id)
  assert.equal(chatBodies(model).at(-1).messages.filter((m: any) => m.role === 'user').length, 3)
  const byTitle = await agent(['chat', '-c', 'Budget', 'review', '-q', 'fourth', '--json'])
  assert.equal(byTitle.code, 0, byTitle.stderr)
  assert.equal(JSON.parse(byTitle.stdout).session_id, second.session_id, '-c takes a title of several words')
  const missing = await agent(['chat', '--resume', 'no such title', '-q', 'x'])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /no session has the id or title "no such title"/)
  const empty = await agent(['chat'], { input: '' })
  assert.equal(empty.code, 2)
  assert.match(empty.stderr, /no prompt/)
})

test('-w runs the turn in a git worktree and removes it when nothing changed', async (t) => {
  const { model, project, agent } = await setup(t)
  const { execFileSync } = await import('node:child_process')
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } })
  git('init', '-q')
  writeFileSync(join(project, 'a.txt'), 'a\n')
  git('add', '.')
  git('commit', '-qm', 'init')
  const run = await agent(['chat', '-w', '-q', 'where am I?'])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /worktree .*\.worktrees\/agent-.* had no changes and was removed/)
  assert.match(chatBodies(model)[0].messages[0].content, /Working directory: .*\.worktrees\/agent-/)
  assert.doesNotMatch(git('worktree', 'list'), /\.worktrees/)
})
