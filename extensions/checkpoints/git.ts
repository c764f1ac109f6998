// Runs git against a shadow repository: GIT_DIR under <agent_home>/checkpoints/<hash of the directory>,
// GIT_WORK_TREE the working directory. The user's global and system git config are ignored, and the
// project's own .git is never read or written.
//
// Every git run here (the shadow's, and the project's own `ls-files`) gets SAFE_CONFIG: the folder is
// writable by sandboxed commands, so anything in it (a nested repository's config, a planted hooks
// folder) must never name a program that git runs in the agent's own, unsandboxed process.

import { spawn } from 'node:child_process'

export interface GitResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface GitContext {
  gitDir: string
  workTree: string
  env: Record<string, string>
  timeoutMs: number
}

/**
 * `-c` options that switch off every program a repository's config can make these git commands run:
 * the fsmonitor hook (`core.fsmonitor`, also read by a child git in a nested repository: `-c` values
 * reach children through GIT_CONFIG_PARAMETERS and override the repository's own config), hooks
 * (post-commit, reference-transaction, post-checkout) and recursion into submodules (a `git status`
 * spawned inside each one, which reads that repository's config). Filter, textconv and diff drivers
 * need a definition in config, and only the shadow's own config (the agent's) is read.
 */
export const SAFE_CONFIG: readonly string[] = [
  '-c', 'core.fsmonitor=false',
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'submodule.recurse=false',
  '-c', 'diff.ignoreSubmodules=all',
]

export function gitEnv(base: Record<string, string>, ctx: { gitDir: string; workTree: string }): Record<string, string> {
  return {
    ...base,
    GIT_DIR: ctx.gitDir,
    GIT_WORK_TREE: ctx.workTree,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'agent checkpoints',
    GIT_AUTHOR_EMAIL: 'checkpoints@agent.invalid',
    GIT_COMMITTER_NAME: 'agent checkpoints',
    GIT_COMMITTER_EMAIL: 'checkpoints@agent.invalid',
    LC_ALL: 'C',
  }
}

export function git(ctx: GitContext, args: string[], extraEnv: Record<string, string> = {}, input?: string): Promise<GitResult> {
  return spawnGit([...SAFE_CONFIG, '-c', 'core.autocrlf=false', '-c', 'core.quotepath=false', '-c', 'gc.auto=0', ...args], { cwd: ctx.workTree, env: { ...gitEnv(ctx.env, ctx), ...extraEnv }, timeoutMs: ctx.timeoutMs, input })
}

/** One git process (killed after `timeoutMs`); never throws, a spawn failure is a result without code. */
export function spawnGit(args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs: number; input?: string }): Promise<GitResult> {
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let child
    try {
      child = spawn('git', args, { cwd: options.cwd, env: options.env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
    } catch (error) {
      resolve({ code: null, stdout: '', stderr: (error as Error).message })
      return
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    if (options.input !== undefined) {
      child.stdin!.on('error', () => undefined)
      child.stdin!.end(options.input)
    }
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ code: null, stdout, stderr: error.message })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Throws a one-line error when git failed. */
export async function gitOk(ctx: GitContext, args: string[], extraEnv?: Record<string, string>, input?: string): Promise<string> {
  const result = await git(ctx, args, extraEnv, input)
  if (result.code !== 0) throw new Error(`git ${args[0]} failed: ${(result.stderr || result.stdout).trim().split('\n')[0] ?? `exit ${result.code}`}`)
  return result.stdout
}
