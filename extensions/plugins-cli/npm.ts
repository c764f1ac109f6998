// npm as the installer: `npm pack` fetches a package (registry, git or a local folder) into a tarball
// without running any script, `npm install --prefix <agent_home>/plugins` installs that exact
// tarball, `npm uninstall` removes it. Scripts never run unless the user asks (--allow-scripts).

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { AgentError, UsageError } from 'agent/sdk'

export type SpecKind = 'npm' | 'path' | 'git'

export interface PluginSpec {
  kind: SpecKind
  /** What npm is given: an absolute folder path, a git URL, or a registry spec. */
  target: string
  /** As the user typed it. */
  original: string
}

const GIT = /^(git\+|git:\/\/|git@|github:|gitlab:|bitbucket:|gist:)|\.git(#.*)?$/
const REGISTRY = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(@[^\s/]+)?$/

/** Classifies `<npm package | path | git url>`; a path must exist. */
export function parseSpec(text: string, cwd: string, home: string): PluginSpec {
  const spec = text.trim()
  if (!spec) throw new UsageError('name a plugin: an npm package, a folder path or a git URL')
  if (spec.startsWith('file:') || spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('~') || isAbsolute(spec)) {
    const raw = spec.replace(/^file:(\/\/)?/, '').replace(/^~(?=$|\/)/, home)
    const path = resolve(cwd, raw)
    if (!existsSync(join(path, 'package.json'))) throw new UsageError(`${path}: no package.json there (a plugin folder needs one)`)
    return { kind: 'path', target: path, original: spec }
  }
  if (GIT.test(spec) || /^https?:\/\/(github\.com|gitlab\.com|bitbucket\.org)\//.test(spec)) return { kind: 'git', target: spec, original: spec }
  if (REGISTRY.test(spec)) return { kind: 'npm', target: spec, original: spec }
  if (existsSync(join(resolve(cwd, spec), 'package.json'))) return { kind: 'path', target: resolve(cwd, spec), original: spec }
  throw new UsageError(`"${spec}" is not an npm package name, an existing folder or a git URL`)
}

export interface NpmOptions {
  cwd: string
  timeoutMs: number
  signal?: AbortSignal
}

/** Runs npm; resolves with stdout, rejects with npm's error lines (one line per problem, no stack). */
export function npm(args: string[], options: NpmOptions): Promise<string> {
  const command = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const full = [...args, '--prefix', options.cwd, '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error']
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, full, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(new AgentError('E_NPM', `could not run npm: ${(error as Error).message}`, { cause: error }))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) return resolvePromise(stdout)
      const lines = stderr
        .split('\n')
        .map((l) => l.replace(/^npm (error|ERR!)\s*/, '').trim())
        .filter((l) => l && !/^(A complete log|Unknown user config|npm warn)/i.test(l) && !l.startsWith('npm warn'))
      const why = signal ? `timed out after ${options.timeoutMs / 1000} s` : lines.slice(0, 3).join('; ') || `exit code ${code}`
      reject(new AgentError('E_NPM', `npm ${args[0]} failed: ${why}`))
    })
  })
}

export interface Packed {
  name: string
  version: string
  integrity: string
  /** Absolute path of the tarball. */
  file: string
}

/** `npm pack <target>` into `dir`, scripts off. */
export async function pack(spec: PluginSpec, dir: string, options: NpmOptions): Promise<Packed> {
  mkdirSync(dir, { recursive: true })
  const out = await npm(['pack', spec.target, '--pack-destination', dir, '--json', '--ignore-scripts'], options)
  let info: Array<{ name: string; version: string; integrity: string; filename: string }>
  try {
    info = JSON.parse(out.slice(out.indexOf('[')))
  } catch {
    throw new AgentError('E_NPM', `npm pack ${spec.original}: unexpected output`)
  }
  const first = info[0]
  if (!first) throw new AgentError('E_NPM', `npm pack ${spec.original}: no package`)
  return { name: first.name, version: first.version, integrity: first.integrity, file: join(dir, first.filename.replace(/^@/, '').replace(/\//g, '-')) }
}

/** The plugins folder is an npm project of its own. */
export function ensurePluginsProject(pluginsDir: string): void {
  mkdirSync(pluginsDir, { recursive: true })
  const file = join(pluginsDir, 'package.json')
  if (!existsSync(file)) writeFileSync(file, JSON.stringify({ name: 'agent-plugins', private: true, description: 'Plugins of the agent (managed by agent plugins)', dependencies: {} }, null, 2) + '\n')
}
