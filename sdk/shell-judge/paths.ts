// Path shapes for the command rules: which delete targets are the root, a system directory or a home,
// and which write or read targets are protected (raw block devices here; the rest is the sdk's
// protected-paths classifier, applied lexically). Works on resolved words: UNKNOWN parts and globs
// may match anything in their segment.

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathClassifier, type PathClass, type PathClassifier } from '../protected-paths.ts'
import { UNKNOWN } from './words.ts'

export interface PathShape {
  base: 'root' | 'home' | 'relative'
  segments: string[]
}

const SYSTEM_DIRS = ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'libx32', 'opt', 'proc', 'root', 'sbin', 'srv', 'sys', 'usr', 'var', 'Users', 'System', 'Library', 'Applications', 'private', 'nix', 'snap']
const HOMES = ['home', 'Users']

/** Lexical normalisation: `//`, `.` and `..` (never above the root) folded; `~user` is a home too. */
export function pathShape(value: string): PathShape {
  const raw = value.split('/')
  let base: PathShape['base'] = 'relative'
  if (value.startsWith('/')) base = 'root'
  else if (/^~[^/]*$/.test(raw[0] ?? '')) base = 'home'
  const segments: string[] = []
  for (const seg of base === 'relative' ? raw : raw.slice(1)) {
    if (seg === '' || seg === '.') continue
    if (seg === '..' && base !== 'relative' && segments.length === 0) {
      if (base === 'home') base = 'root', segments.push('home')
      continue
    }
    if (seg === '..' && segments.length > 0 && segments[segments.length - 1] !== '..') segments.pop()
    else segments.push(seg)
    // `/proc/self/root`, `/proc/1/root`, `/proc/*/task/*/root`: the root directory again.
    if (base === 'root' && seg === 'root' && segments[0] === 'proc' && (segments.length === 3 || (segments.length === 5 && segments[2] === 'task'))) segments.length = 0
  }
  return { base, segments }
}

/** Brace expansion of a word (`{/,}`, `~/{*,.*}`), at most `limit` results; a word without braces is itself. */
export function braceExpand(value: string, limit = 64): string[] {
  const open = value.indexOf('{')
  if (open < 0) return [value]
  let depth = 0
  const commas: number[] = []
  for (let i = open; i < value.length; i++) {
    const c = value[i]
    if (c === '\\') i++
    else if (c === '{') depth++
    else if (c === '}' && --depth === 0) {
      if (!commas.length) return braceExpand(value.slice(i + 1), limit).map((rest) => value.slice(0, i + 1) + rest)
      const cuts = [open, ...commas, i]
      const out: string[] = []
      for (let k = 0; k + 1 < cuts.length && out.length < limit; k++) {
        for (const x of braceExpand(value.slice(0, open) + value.slice(cuts[k]! + 1, cuts[k + 1]) + value.slice(i + 1), limit)) if (out.length < limit) out.push(x)
      }
      return out
    } else if (c === ',' && depth === 1) commas.push(i)
  }
  return [value]
}

/** A segment that can stand for any name or for nothing (`*`, `.*`, `$X`, `{,}`): deleting it deletes what holds it. */
function matchesAll(segment: string): boolean {
  return /^\.?[*?\u0000]+$/.test(segment) || segmentMatches(segment, '')
}

/** Glob (and UNKNOWN) semantics for one segment. */
export function segmentMatches(pattern: string, name: string, ignoreCase = false): boolean {
  let re = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*' || c === UNKNOWN) re += '.*'
    else if (c === '?') re += '.'
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2)
      if (end < 0) re += '\\['
      else (re += `[${pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`), (i = end)
    } else if (c === '{') {
      const end = pattern.indexOf('}', i)
      if (end < 0) re += '\\{'
      else (re += `(?:${pattern.slice(i + 1, end).split(',').map(escape).join('|')})`), (i = end)
    } else re += escape(c)
  }
  try {
    return new RegExp(`^${re}$`, ignoreCase ? 'i' : '').test(name)
  } catch {
    return true
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

type DeleteKey = 'rm-root' | 'rm-system-dir' | 'rm-home'
const DELETE_ORDER: DeleteKey[] = ['rm-root', 'rm-system-dir', 'rm-home']

/** Deleting this path removes the root filesystem, a system directory or a home directory (any brace expansion of it). */
export function deleteTargetKey(value: string): DeleteKey | undefined {
  const keys = value.includes('{') ? braceExpand(value).map(deleteKeyOf) : [deleteKeyOf(value)]
  return DELETE_ORDER.find((key) => keys.includes(key))
}

function deleteKeyOf(value: string): DeleteKey | undefined {
  const shape = pathShape(value)
  const segments = [...shape.segments]
  while (segments.length && matchesAll(segments[segments.length - 1]!)) segments.pop()
  if (shape.base === 'home') return segments.length === 0 ? 'rm-home' : undefined
  if (shape.base !== 'root') return undefined
  if (segments.length === 0) return 'rm-root'
  if (segments.length === 1) {
    // Case folded: macOS volumes are case-insensitive by default (`/USR` is `/usr`).
    if (SYSTEM_DIRS.some((dir) => segmentMatches(segments[0]!, dir, true))) return 'rm-system-dir'
    return undefined
  }
  if (segments.length === 2 && HOMES.some((dir) => segmentMatches(segments[0]!, dir, true))) return 'rm-home'
  return undefined
}

const BLOCK_DEVICE = /^\/dev\/(?:sd|nvme|hd|mmcblk|vd|xvd|disk|rdisk|md|dm-|mapper\/|loop|sr)[^/]*$/

export interface PathContext {
  /** The agent's home (default: AGENT_HOME, else ~/.agent). */
  agentHome?: string
  /** The command's working directory, for relative targets. */
  cwd?: string
}

export type WriteKey = 'redirect-block-device' | 'shutdown' | 'system-config-write' | 'credential-files' | 'agent-config' | 'git-control'

const classifiers = new Map<string, PathClassifier>()
/** One classifier per agent home (it resolves the spellings of its roots once). */
function classifierFor(agentHome: string | undefined): PathClassifier {
  const home = agentHome ?? process.env.AGENT_HOME ?? join(homedir(), '.agent')
  let classifier = classifiers.get(home)
  if (!classifier) classifiers.set(home, (classifier = pathClassifier({ agentHome: home })))
  return classifier
}

/**
 * The absolute spellings a shell word may name: `~`-paths, any user's home taken as this user's
 * (`sudo tee /root/.ssh/…`), and a relative path both from the working directory and from the
 * home (a `cd` earlier in the same command may have moved there).
 */
function candidates(value: string, cwd: string | undefined): string[] {
  const shape = pathShape(value)
  const rest = shape.segments.join('/')
  if (shape.base === 'home') return [`~/${rest}`]
  if (shape.base === 'relative') return [...(cwd ? [resolve(cwd, rest)] : []), `~/${rest}`]
  const other = /^(?:home\/[^/]+|Users\/[^/]+|root)(?:\/(.*))?$/.exec(rest)
  return other ? [`/${rest}`, `~/${other[1] ?? ''}`] : [`/${rest}`]
}

function classify(value: string, ctx: PathContext): PathClass[] {
  const classifier = classifierFor(ctx.agentHome)
  return candidates(value, ctx.cwd).map((path) => classifier.lexical(path))
}

/** Writing to this path needs approval (or is never allowed, for a raw block device). */
export function writeTargetKey(value: string, ctx: PathContext = {}): WriteKey | undefined {
  const shape = pathShape(value)
  const path = shape.base === 'root' ? `/${shape.segments.join('/')}` : undefined
  if (path && BLOCK_DEVICE.test(path)) return 'redirect-block-device'
  if (path?.startsWith('/dev/')) return undefined // /dev/null, /dev/stderr, a tty
  if (path === '/proc/sysrq-trigger') return 'shutdown' // `echo b >` reboots at once
  // Project-local settings and secrets (`./.agent/config.yaml`, `./.env`).
  if (shape.base === 'relative' && /^(?:\.agent|\.env)$/.test(shape.segments[0] ?? '')) return 'agent-config'
  // The default agent home, whatever AGENT_HOME says for this process.
  if (shape.base === 'home' && shape.segments[0] === '.agent') return 'agent-config'
  if (globbedDotfile(value)) return 'credential-files'
  for (const found of classify(value, ctx)) {
    if (found.kind === 'ordinary') continue
    if (found.area === 'agent-home') return 'agent-config'
    if (found.area === 'user') return 'credential-files'
    if (found.area === 'repository') return 'git-control'
    return 'system-config-write'
  }
  return undefined
}

/**
 * A home dotfile named through a glob or a run-time part (`~/.bash?c`, `~/.ss*`, `~/.$X/…`): it may
 * be any of them, so it counts as protected (globs in a redirect target expand too).
 */
function globbedDotfile(value: string): boolean {
  const shape = pathShape(value)
  const rest = shape.base === 'home' ? shape.segments : shape.base === 'root' && /^(?:home|Users)$/.test(shape.segments[0] ?? '') ? shape.segments.slice(2) : shape.base === 'root' && shape.segments[0] === 'root' ? shape.segments.slice(1) : []
  const first = rest[0] ?? ''
  return /^[.*?[\u0000]/.test(first) && /[*?[{\u0000]/.test(rest.join('/'))
}

/** Reading this path shows secrets: private keys, credentials, the agent's .env, a process environment. */
export function isSecretRead(value: string, ctx: PathContext = {}): boolean {
  // A relative path is read in the working directory, when it is known (`cat .ssh/id_rsa` in the home).
  if (!/^[/~]/.test(value)) return ctx.cwd !== undefined && /^[/~]/.test(ctx.cwd) && !value.includes(UNKNOWN) && isSecretRead(`${ctx.cwd}/${value}`, { ...ctx, cwd: undefined })
  return globbedDotfile(value) || classify(value, ctx).some((found) => found.kind === 'secret')
}

/** Names inside a folder that would be secret if the folder holds them (`tar c ~/.ssh` reads id_*; the agent's credential folders). */
const SECRET_PROBES = ['id_rsa', '.env', 'credentials', '.ssh/id_rsa', '.aws/credentials', '.agent/.env', 'auth/creds.json', 'mcp/auth/x.json', 'whatsapp/auth/creds.json']

/** Copying or archiving this folder takes secrets with it (`tar c ~`, `cp -r ~/.ssh x`). */
export function holdsSecrets(value: string, ctx: PathContext = {}): boolean {
  if (!/^[/~]/.test(value) || pathShape(value).base === 'root' && pathShape(value).segments.length === 0) return false
  const dir = value.replace(/\/+$/, '')
  return SECRET_PROBES.some((name) => isSecretRead(`${dir}/${name}`, ctx))
}

/** Another process's environment (where secrets live): `/proc/<pid>/environ`. */
export function isProcessEnviron(value: string): boolean {
  return value.startsWith('/') && /^\/proc\/.+\/environ$/.test(`/${pathShape(value).segments.join('/')}`)
}
