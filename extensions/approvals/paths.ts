// Path shapes for the command rules: which delete targets are the root, a system directory or a home,
// and which write targets are protected (block devices, /etc, credentials and shell start-up files, the
// agent's home). Works on resolved words: UNKNOWN parts and globs may match anything in their segment.

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
  }
  return { base, segments }
}

/** A segment that can stand for any name (`*`, `.*`, `$X`): deleting it deletes what holds it. */
function matchesAll(segment: string): boolean {
  return /^\.?[*?\u0000]+$/.test(segment)
}

/** Glob (and UNKNOWN) semantics for one segment. */
export function segmentMatches(pattern: string, name: string): boolean {
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
    return new RegExp(`^${re}$`).test(name)
  } catch {
    return true
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Deleting this path removes the root filesystem, a system directory or a home directory. */
export function deleteTargetKey(value: string): 'rm-root' | 'rm-system-dir' | 'rm-home' | undefined {
  const shape = pathShape(value)
  const segments = [...shape.segments]
  while (segments.length && matchesAll(segments[segments.length - 1]!)) segments.pop()
  if (shape.base === 'home') return segments.length === 0 ? 'rm-home' : undefined
  if (shape.base !== 'root') return undefined
  if (segments.length === 0) return 'rm-root'
  if (segments.length === 1) {
    if (SYSTEM_DIRS.some((dir) => segmentMatches(segments[0]!, dir))) return 'rm-system-dir'
    return undefined
  }
  if (segments.length === 2 && HOMES.some((dir) => segmentMatches(segments[0]!, dir))) return 'rm-home'
  return undefined
}

const BLOCK_DEVICE = /^\/dev\/(?:sd|nvme|hd|mmcblk|vd|xvd|disk|rdisk|md|dm-|mapper\/|loop|sr)[^/]*$/
/** Files in a home that hold credentials or run at shell start. */
const HOME_PROTECTED = /^(?:\.ssh(?:\/|$)|\.(?:bash(?:rc|_profile|_login|_logout)|profile|zshrc|zprofile|zshenv|zlogin|zlogout|kshrc|cshrc|tcshrc|netrc|npmrc|pypirc|git-credentials|gitconfig)$|\.gnupg(?:\/|$)|\.aws\/|\.kube\/|\.docker\/config\.json$|\.config\/(?:gh|fish|git)\/)/

export type WriteKey = 'redirect-block-device' | 'system-config-write' | 'credential-files' | 'agent-config'

/** Writing to this path needs approval (or is never allowed, for a block device). */
export function writeTargetKey(value: string, agentHome?: string): WriteKey | undefined {
  const shape = pathShape(value)
  const path = (shape.base === 'root' ? '/' : shape.base === 'home' ? '~/' : '') + shape.segments.join('/')
  if (BLOCK_DEVICE.test(path)) return 'redirect-block-device'
  if (/^\/(?:private\/)?etc\//.test(path)) return 'system-config-write'
  const inHome = shape.base === 'home' ? shape.segments.join('/') : shape.base === 'relative' ? path : /^\/(?:home\/[^/]+|Users\/[^/]+|root)\/(.*)$/.exec(path)?.[1]
  if (inHome !== undefined && HOME_PROTECTED.test(inHome)) return 'credential-files'
  if (inHome !== undefined && /^\.agent(?:\/|$)/.test(inHome)) return 'agent-config'
  if (shape.base === 'relative' && /^\.env$/.test(path)) return 'agent-config'
  if (agentHome && shape.base === 'root') {
    const home = pathShape(agentHome).segments.join('/')
    const here = shape.segments.join('/')
    if (home && (here === home || here.startsWith(`${home}/`))) return 'agent-config'
  }
  return undefined
}

/** Another process's environment (where secrets live): `/proc/<pid>/environ`. */
export function isProcessEnviron(value: string): boolean {
  return /^\/proc\/[^/]+\/environ$/.test('/' + pathShape(value).segments.join('/')) && value.startsWith('/')
}
