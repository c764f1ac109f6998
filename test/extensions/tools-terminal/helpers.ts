// Shared by the terminal tests: a kernel with the terminal toolset, and a tool session.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import type { ToolDefinition, ToolSession } from 'agent/sdk'
import { createTestKernel, type TestKernelOptions } from 'agent/sdk/testing'
import { tempDir as testTempDir } from '../../helpers/temp.ts'

/** A temporary working directory, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'agent-term-'): string {
  return testTempDir(t, prefix)
}

export async function terminalKernel(options: TestKernelOptions = {}) {
  const test = await createTestKernel({ builtins: ['tools-terminal'], ...options })
  const tool = (name: string) => {
    const found = test.kernel.registries.tools.get(name) as ToolDefinition | undefined
    if (!found) throw new Error(`tool ${name} not registered`)
    return found
  }
  const call = async (name: string, input: unknown, session: ToolSession) =>
    (await tool(name).execute({ input, callId: `call_${Math.random().toString(36).slice(2)}`, signal: new AbortController().signal, session })) as any
  return { ...test, tool, call }
}

export function session(cwd: string, extra: Partial<ToolSession> = {}): ToolSession {
  return { id: `s-${Math.random().toString(36).slice(2)}`, cwd, ...extra }
}

/** Whether bubblewrap runs here with the sandbox's namespaces (CI installs it; elsewhere its tests skip). */
export const bwrapWorks = spawnSync('bwrap', ['--dev-bind', '/', '/', '--unshare-pid', '--proc', '/proc', '--', 'true']).status === 0
export const sandboxSkip = bwrapWorks ? false : 'bubblewrap cannot run on this machine'

/** A PATH folder (temporary) with node, bash, sh and git but no bwrap. */
export function pathWithoutBwrap(t: TestContext): string {
  const bin = join(tempDir(t, 'agent-nobwrap-'), 'bin')
  mkdirSync(bin)
  for (const tool of ['node', 'bash', 'sh', 'git']) {
    const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim()
    if (found) symlinkSync(found, join(bin, tool))
  }
  return bin
}

/** git in `cwd` with a committer set (its output as text). */
export const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' })

/** A temporary repository with one empty commit (its real path). */
export function committedRepo(t: TestContext): string {
  const repo = realpathSync(tempDir(t))
  git(repo, 'init', '-q')
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'one')
  return repo
}
