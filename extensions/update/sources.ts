// Where a newer agent comes from: the git remote of a checkout (fetch, compare with the upstream
// branch, fast-forward, reinstall dependencies when the lockfile changed) or the npm registry
// (`npm view <name> version`, `npm install -g <name>@<version>`). Every step has a deadline and
// fails as one line (offline included).

import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { AgentError } from 'agent/sdk'

const exec = promisify(execFile)

export interface UpdateCheck {
  source: 'git' | 'npm'
  current: string
  latest: string
  available: boolean
  /** What would change: commit subjects (git) or the version step (npm). */
  changes: string[]
}

export interface UpdateResult {
  from: string
  to: string
  changes: string[]
  notes: string[]
}

async function run(cmd: string, args: string[], cwd: string, timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await exec(cmd, args, { cwd, timeout: timeoutMs, env, maxBuffer: 8 * 1024 * 1024 })
    return stdout.trim()
  } catch (error) {
    const e = error as { code?: string | number; stderr?: string; killed?: boolean }
    if (e.code === 'ENOENT') throw new AgentError('E_UPDATE', `${cmd} is not installed`, { cause: error })
    if (e.killed) throw new AgentError('E_UPDATE', `${cmd} ${args[0]} took longer than ${timeoutMs / 1000} s (offline?)`, { cause: error })
    const line = (e.stderr ?? '').split('\n').map((l) => l.trim()).find((l) => l && !/^npm warn/i.test(l)) ?? String(error)
    throw new AgentError('E_UPDATE', `${cmd} ${args[0]} failed: ${line}`, { cause: error })
  }
}

export function packageInfo(root: string): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: string; version?: string }
  return { name: pkg.name ?? 'agent', version: pkg.version ?? '0.0.0' }
}

/** A checkout with an upstream branch updates through git; anything else through npm. */
export async function sourceOf(root: string): Promise<'git' | 'npm'> {
  if (!existsSync(join(root, '.git'))) return 'npm'
  try {
    await run('git', ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}'], root, 5000)
    return 'git'
  } catch {
    return 'npm'
  }
}

export async function checkGit(root: string, timeoutMs = 20_000): Promise<UpdateCheck> {
  await run('git', ['fetch', '--quiet'], root, timeoutMs)
  const current = await run('git', ['rev-parse', '--short', 'HEAD'], root, 5000)
  const latest = await run('git', ['rev-parse', '--short', '@{u}'], root, 5000)
  const log = await run('git', ['log', '--format=%h %s', 'HEAD..@{u}'], root, 5000)
  const changes = log ? log.split('\n') : []
  return { source: 'git', current, latest, available: changes.length > 0, changes }
}

export async function applyGit(root: string, timeoutMs = 120_000): Promise<UpdateResult> {
  const before = await run('git', ['rev-parse', 'HEAD'], root, 5000)
  const dirty = await run('git', ['status', '--porcelain', '--untracked-files=no'], root, 5000)
  if (dirty) throw new AgentError('E_UPDATE', `local changes in ${root} would be overwritten; commit or stash them first`)
  await run('git', ['pull', '--ff-only', '--quiet'], root, timeoutMs)
  const after = await run('git', ['rev-parse', 'HEAD'], root, 5000)
  const log = before === after ? '' : await run('git', ['log', '--format=%h %s', `${before}..${after}`], root, 5000)
  const notes: string[] = []
  const touched = before === after ? '' : await run('git', ['diff', '--name-only', before, after, '--', 'package.json', 'package-lock.json'], root, 5000)
  if (touched) {
    await run('npm', ['install', '--no-audit', '--no-fund'], root, 600_000)
    notes.push('dependencies reinstalled (package.json changed)')
  }
  return { from: before.slice(0, 7), to: after.slice(0, 7), changes: log ? log.split('\n') : [], notes }
}

/** -1, 0, 1 by semver precedence of x.y.z (pre-releases sort before their release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.replace(/^v/, '').split('-', 2)
    return { nums: core.split('.').map((n) => Number.parseInt(n, 10) || 0), pre }
  }
  const x = parse(a)
  const y = parse(b)
  for (let i = 0; i < 3; i++) if ((x.nums[i] ?? 0) !== (y.nums[i] ?? 0)) return (x.nums[i] ?? 0) < (y.nums[i] ?? 0) ? -1 : 1
  if (x.pre === y.pre) return 0
  if (!x.pre) return 1
  if (!y.pre) return -1
  return x.pre < y.pre ? -1 : 1
}

export async function checkNpm(root: string, env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<UpdateCheck> {
  const { name, version } = packageInfo(root)
  const out = await run('npm', ['view', name, 'version', '--json', '--fetch-retries=1', '--fetch-retry-mintimeout=500', '--fetch-retry-maxtimeout=2000', '--fetch-timeout=10000'], root, timeoutMs, env)
  let latest: string
  try {
    latest = String(JSON.parse(out))
  } catch {
    latest = out
  }
  if (!/^\d+\.\d+\.\d+/.test(latest)) throw new AgentError('E_UPDATE', `the registry answered an unexpected version for ${name}: ${latest.slice(0, 40)}`)
  const available = compareVersions(version, latest) < 0
  return { source: 'npm', current: version, latest, available, changes: available ? [`${name} ${version} → ${latest}`] : [] }
}

export async function applyNpm(root: string, env: NodeJS.ProcessEnv, latest: string): Promise<UpdateResult> {
  const { name, version } = packageInfo(root)
  await run('npm', ['install', '--global', '--no-audit', '--no-fund', `${name}@${latest}`], root, 600_000, env)
  return { from: version, to: latest, changes: [`${name} ${version} → ${latest}`], notes: [] }
}
