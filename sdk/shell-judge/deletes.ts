// Deletes: `rm`, `find -delete` / `-exec rm` (and the files find's `-fprint` family writes), Windows
// deletes. Which delete targets are never allowed (the root, a system directory, a home) is paths.ts;
// permissions (`chmod`, `chown`) are permissions.ts.

import { inCwd, longIs, split, type Judge, type Rule } from './judge.ts'
import { deleteTargetKey } from './paths.ts'
import { basename } from './wrappers.ts'
import { writes } from './writers.ts'
import { UNKNOWN, type Word } from './words.ts'

const rm: Rule = (argv, j, via) => {
  const { operands, flags, longs } = split(argv)
  if (/[rR]/.test(flags) || longIs(longs, 'recursive')) j.emit('recursive-delete')
  if (via.includes('xargs')) j.emit('xargs-rm')
  for (const t of operands) {
    const target = inCwd(t.value, j)
    const never = deleteTargetKey(target)
    if (never) j.emit(never)
    else if (target.includes(UNKNOWN)) j.emit('delete-unknown-path')
    if (/^[/~]/.test(t.value)) j.emit('delete-absolute-path')
  }
}

/** find tests that select files: without one, `{}` is every file below the start (and the start itself). */
const FIND_TESTS = /^-(?:i?name|i?path|i?wholename|i?regex|i?lname|type|xtype|newer\w*|[acm](?:time|min|newer)|used|size|user|group|nouser|nogroup|uid|gid|perm|empty|links|inum|samefile|executable|readable|writable|fstype|context|false)$/

const find: Rule = (argv, j, via) => {
  // Start paths: the operands before the expression (`find / -maxdepth 1 -exec rm -rf {} +`).
  const first = argv.findIndex((w, k) => k > 0 && /^[-(!]/.test(w.value) && !/^-[HLP]$|^-D$|^-O\d*$/.test(w.value))
  const starts = argv.slice(1, first < 0 ? argv.length : first).filter((w) => !/^-[HLP]$/.test(w.value))
  const selects = argv.some((w) => FIND_TESTS.test(w.value))
  // Unselected, `{}` is any file under each start: `START/UNKNOWN` (a delete of it deletes START).
  const items = selects || starts.length === 0 ? [UNKNOWN] : starts.map((s) => `${s.value.replace(/\/+$/, '')}/${UNKNOWN}`)
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!.value
    if (w === '-delete') {
      j.emit('find-delete')
      for (const item of selects ? [] : items) {
        const key = deleteTargetKey(inCwd(item, j))
        if (key) j.emit(key)
      }
    }
    // `-fprint FILE`, `-fprintf FILE FORMAT`, `-fls FILE` write FILE.
    if (/^-(?:fprint0?|fprintf|fls)$/.test(w) && argv[i + 1]) writes([argv[i + 1]!], j)
    if (/^-(?:exec|execdir|ok|okdir)$/.test(w)) {
      const end = argv.findIndex((x, k) => k > i && (x.value === ';' || x.value === '+'))
      for (const item of /dir$/.test(w) ? [UNKNOWN] : items) {
        const inner = argv.slice(i + 1, end < 0 ? argv.length : end).map((x) => (x.value.includes('{}') ? { value: x.value.replaceAll('{}', item), literal: false } : x))
        if (inner[0] && /^(?:rm|unlink|shred|truncate)$/.test(basename(inner[0].value))) j.emit('find-delete')
        if (inner.length) j.argv(inner, [...via, 'find'])
      }
      i = end < 0 ? argv.length : end
    }
  }
}

/** Rules of the programs that delete (part of the table in rules.ts). */
export const DELETES: Record<string, Rule> = {
  rm,
  find,
  del: windowsDelete,
  erase: windowsDelete,
  rd: windowsDelete,
  rmdir: windowsDelete,
  'remove-item': (argv, j) => argv.some((w) => /^-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?$/i.test(w.value)) && j.emit('windows-delete'),
}

function windowsDelete(argv: Word[], j: Judge): void {
  if (argv.some((w) => /^\/s$/i.test(w.value))) j.emit('windows-delete')
}
