// `-w/--worktree`: the chat runs in an isolated git worktree of the current repository
// (`<repo>/.worktrees/agent-<stamp>` on a new branch `agent/<stamp>`). On exit an untouched worktree
// is removed; one with changes or commits is kept and named.

import { execFile } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { AgentError, UsageError } from 'agent/sdk'

const execGit = promisify(execFile)

/**
 * The repository may have come with the project (an archive, a shared folder): its hooks
 * (post-checkout on `worktree add`, reference-transaction on `branch -D`) and `core.fsmonitor` (on
 * `status`) would run as the user, unprompted. `-c` overrides the repository's own config and reaches
 * any child git (`worktree add` checks out through one). Checkpoints keep a like list (git.ts there;
 * extensions share no files); its submodule options would hide a changed submodule from `status`
 * here. Filters (`filter.*.smudge`) stay on: git-lfs needs them to check out real files.
 */
const SAFE_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null']

const run = (args: string[], cwd: string) => execGit('git', [...SAFE_CONFIG, ...args], { cwd, timeout: 30_000 })

async function git(cwd: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(args, cwd)
    return stdout.trim()
  } catch (error) {
    const e = error as { code?: string; stderr?: string }
    if (e.code === 'ENOENT') throw new AgentError('E_WORKTREE', '--worktree needs git, which is not installed', { cause: error })
    throw new AgentError('E_WORKTREE', `git ${args[0]} failed: ${(e.stderr ?? String(error)).trim().split('\n')[0]}`, { cause: error })
  }
}

export interface Worktree {
  path: string
  branch: string
  repo: string
  base: string
  /** Removes the worktree if nothing changed; returns a line saying what happened. */
  finish(): Promise<string>
}

export async function createWorktree(cwd: string): Promise<Worktree> {
  let repo: string
  try {
    repo = (await run(['rev-parse', '--show-toplevel'], cwd)).stdout.trim()
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') throw new UsageError('--worktree needs git, which is not installed')
    throw new UsageError(`--worktree needs a git repository, and ${cwd} is not in one`)
  }
  const base = await git(repo, 'rev-parse', 'HEAD').catch(() => {
    throw new UsageError('--worktree needs at least one commit in the repository')
  })
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14) + '-' + Math.random().toString(36).slice(2, 6)
  const path = join(repo, '.worktrees', `agent-${stamp}`)
  const branch = `agent/${stamp}`
  // Keep the worktrees folder out of the project's own `git status`.
  const exclude = join(await git(repo, 'rev-parse', '--git-common-dir').then((d) => (d.startsWith('/') ? d : join(repo, d))), 'info', 'exclude')
  try {
    if (!existsSync(exclude) || !readFileSync(exclude, 'utf8').split('\n').includes('.worktrees/')) appendFileSync(exclude, '\n.worktrees/\n')
  } catch {
    // Not fatal: the folder then shows up as untracked.
  }
  await git(repo, 'worktree', 'add', '-b', branch, path, base)
  return {
    path,
    branch,
    repo,
    base,
    async finish() {
      const dirty = await git(path, 'status', '--porcelain').catch(() => 'unknown')
      const head = await git(path, 'rev-parse', 'HEAD').catch(() => base)
      if (!dirty && head === base) {
        await git(repo, 'worktree', 'remove', '--force', path).catch(() => undefined)
        await git(repo, 'branch', '-D', branch).catch(() => undefined)
        return `worktree ${path} had no changes and was removed`
      }
      return `worktree kept: ${path} (branch ${branch}); merge it or remove it with: git worktree remove ${path}`
    },
  }
}
