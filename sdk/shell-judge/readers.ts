// Reading secrets: arguments of any program that name a process environment (`/proc/1/environ`),
// a secret file (private keys, credentials, the agent's .env) or, for programs that read whole
// folders, a folder holding them. Which paths are secret is paths.ts.

import { placesOf, type Judge } from './judge.ts'
import { holdsSecrets, isProcessEnviron, isSecretRead } from './paths.ts'
import type { Word } from './words.ts'

/** They use a private key without showing it (`ssh -i ~/.ssh/id_ed25519`), or do not read files. */
const NOT_READERS = new Set(['echo', 'printf', 'cd', 'pushd', 'mkdir', 'ssh', 'sftp', 'ssh-add', 'ssh-keygen', 'ssh-copy-id', 'git', 'ls', 'stat', 'file', 'test', '[', 'du', 'touch', 'mkdir', 'chmod', 'chown', 'chgrp', 'rm', 'mv'])
/** They read whole folders (`tar c ~/.ssh`, `cp -r ~ x`). */
const TREE_READERS = new Set(['tar', 'zip', '7z', '7za', 'cp', 'rsync', 'scp', 'rclone', 'cpio', 'pax'])

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
  if (paths.some((p) => isSecretRead(p, j.paths) || (TREE_READERS.has(name) && holdsSecrets(p, j.paths)))) j.emit('secret-read')
}
