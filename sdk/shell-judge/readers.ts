// Reading secrets: arguments of any program that name a process environment (`/proc/1/environ`),
// a secret file (private keys, credentials, the agent's .env) or, for programs that read whole
// folders, a folder holding them. Which paths are secret is paths.ts.

import { placesOf, type Judge } from './judge.ts'
import { holdsSecrets, isProcessEnviron, isSecretRead } from './paths.ts'
import type { Word } from './words.ts'

/** They use a private key without showing it (`ssh -i ~/.ssh/id_ed25519`), or do not read files. */
const NOT_READERS = new Set(['echo', 'printf', 'cd', 'pushd', 'mkdir', 'ssh', 'sftp', 'ssh-add', 'ssh-keygen', 'ssh-copy-id', 'git', 'ls', 'stat', 'file', 'test', '[', 'du', 'touch', 'mkdir', 'chmod', 'chown', 'chgrp', 'rm', 'mv'])
/** They read whole folders (`tar c ~/.ssh`, `cp -r ~ x`); searchers that may are `searchesTrees`. */
const TREE_READERS = new Set(['tar', 'zip', '7z', '7za', 'cp', 'rsync', 'scp', 'rclone', 'cpio', 'pax'])

/** Short options of grep that take a value: the rest of a cluster after one is that value (`-er` is `-e r`). */
const GREP_VALUED = new Set('efmABCdD')

/**
 * Searchers that read whole folders when told to: grep recursing (`-r`, `-R`, `--recursive`,
 * `-d recurse`), ripgrep and ag with hidden files (they skip dot-folders such as ~/.ssh otherwise),
 * and ack (it does not skip them).
 */
function searchesTrees(name: string, argv: Word[]): boolean {
  if (name === 'ack') return true
  const options = argv.slice(1).map((w) => w.value)
  const end = options.indexOf('--')
  const given = end === -1 ? options : options.slice(0, end)
  if (name === 'rg' || name === 'ag') return given.some((o) => o === '--hidden' || o === '--unrestricted' || /^-[A-Za-z.]*(\.|uu)/.test(o) || (name === 'ag' && /^-[A-Za-z]*u/.test(o)))
  if (name !== 'grep' && name !== 'egrep' && name !== 'fgrep') return false
  return given.some((o, i) => {
    if (/^--(recursive|dereference-recursive|directories=recurse|d[a-z-]*=recurse)$/.test(o)) return true
    if (o === '-d' || o === '--directories') return given[i + 1] === 'recurse'
    if (!/^-[^-]/.test(o)) return false
    for (const letter of o.slice(1)) {
      if (letter === 'r' || letter === 'R') return true
      if (GREP_VALUED.has(letter)) return letter === 'd' && o.endsWith('recurse')
    }
    return false
  })
}

/** Paths a word may name: itself, after `opt=` / `if=`, after a leading `@` (`curl -d @file`). */
function pathsIn(word: Word): string[] {
  const out = [word.value]
  const eq = word.value.indexOf('=')
  if (eq > 0) out.push(word.value.slice(eq + 1))
  if (/^[@<]/.test(word.value)) out.push(word.value.slice(1))
  return out
}

/** Arguments that read secrets: a process environment, secret files, folders that hold them. */
export function reads(name: string, argv: Word[], j: Judge): void {
  const paths = argv.slice(1).flatMap(pathsIn).flatMap((p) => placesOf(p, j.cwd))
  if (paths.some((p) => isProcessEnviron(p))) return j.emit('process-environ')
  if (NOT_READERS.has(name)) return
  const trees = TREE_READERS.has(name) || searchesTrees(name, argv)
  if (paths.some((p) => isSecretRead(p, j.paths) || (trees && holdsSecrets(p, j.paths)))) j.emit('secret-read')
}
