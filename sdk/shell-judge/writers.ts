// Programs that write files, and where they write: copy/move/link targets, downloads (curl/wget
// option values), archives unpacked into a folder, in-place editors (yq -i, ed/ex/vim, patch). Whether
// a target is protected is paths.ts; dd, sed, awk, find and git write through `writes`.

import { getopt, hasOption, inCwd, longIs, optionValues, placesOf, split, valuesOf, type Getopt, type Judge, type Rule } from './judge.ts'
import { deleteTargetKey, holdsSecrets, isSecretRead, writeTargetKey } from './paths.ts'
import { modeFindings } from './permissions.ts'
import { basename, skipOptions } from './wrappers.ts'
import type { Word } from './words.ts'

/** Targets written, each in every place the script's `cd`s may have put it. */
export const writes = (targets: Word[], j: Judge) => {
  for (const t of targets) {
    for (const place of placesOf(t.value, j.cwd)) {
      const key = writeTargetKey(place, j.paths)
      if (key) j.emit(key)
    }
  }
}

/** Files a folder written whole may get (an archive unpacked into it, a download folder). */
const TREE_PROBES = ['.bashrc', '.profile', '.ssh/authorized_keys', 'config.yaml', 'extensions/x/index.ts']
/** An archive or download written into folder `dir`: protected if the folder is, or holds protected files (`unzip -d ~`). */
function writesInto(dirs: Word[], j: Judge): void {
  for (const d of dirs) {
    writes([d], j)
    for (const place of placesOf(d.value, j.cwd)) {
      // A relative folder is judged only once it is known where it is (a relative probe always looks home-relative).
      const dir = /^[/~]/.test(place) ? place : j.paths.cwd ? `${j.paths.cwd}/${place}` : undefined
      if (!dir) continue
      for (const probe of TREE_PROBES) {
        const key = writeTargetKey(`${dir.replace(/\/+$/, '')}/${probe}`, j.paths)
        if (key && key !== 'git-control') j.emit(key)
      }
    }
  }
}

/** Rules of the programs that write files (part of the table in rules.ts). */
export const WRITERS: Record<string, Rule> = {
  tee: (argv, j) => writes(split(argv).operands, j),
  cp: (argv, j) => writes(copyTargets(argv), j),
  mv: (argv, j) => {
    // Every operand is written: the destination, and each source moved away.
    const { dirs, operands } = copyArgs(argv)
    writes([...dirs, ...operands], j)
    // Moving `/`, a system directory or a home away is as bad as deleting it.
    for (const t of dirs.length ? operands : operands.slice(0, -1)) {
      const key = deleteTargetKey(inCwd(t.value, j))
      if (key) j.emit(key)
    }
  },
  install: (argv, j) => {
    writes(copyTargets(argv), j)
    copyArgs(argv).modes.forEach((mode) => modeFindings(mode, j))
  },
  ln: (argv, j) => {
    writes(copyTargets(argv), j)
    linkTargets(argv, j)
  },
  // rsync has no target-directory option (its `-t` keeps times): the destination is the last operand.
  rsync: (argv, j) => {
    const dest = split(argv).operands.slice(-1)
    writes(dest, j)
    // `--delete` empties the destination of what the source lacks: onto `/` or a home it is a wipe.
    if (longIs(split(argv).longs, 'delete') || split(argv).longs.some((l) => /^(?:delete|del)(?:-|$)/.test(l))) {
      for (const d of dest) {
        const key = deleteTargetKey(inCwd(d.value, j))
        if (key) j.emit(key)
      }
    }
  },
  scp: (argv, j) => writes(localDest(split(argv).operands.slice(-1)), j),
  sponge: (argv, j) => writes(split(argv).operands, j),
  // Editors run non-interactively (`ed -s F <<< …`, `ex -sc … F`, `vim -c … F`) write the files they open.
  ed: (argv, j) => writes(operandsOf(argv, { arg: 'p', long: ['prompt'] }), j),
  red: (argv, j) => writes(operandsOf(argv, { arg: 'p', long: ['prompt'] }), j),
  ex: (argv, j) => writes(editorFiles(argv), j),
  vi: (argv, j) => writes(editorFiles(argv), j),
  vim: (argv, j) => writes(editorFiles(argv), j),
  nvim: (argv, j) => writes(editorFiles(argv), j),
  yq: (argv, j) => {
    const { flags, longs } = split(argv)
    if (/i/.test(flags) || longIs(longs, 'inplace')) writes(operandsOf(argv, { arg: 'pPoIe', long: ['input-format', 'output-format', 'indent', 'expression', 'from-file', 'split-exp'] }).slice(1), j)
  },
  patch: (argv, j) => {
    const files = operandsOf(argv, { arg: 'pdiorBDFVYzg', long: ['strip', 'directory', 'input', 'output', 'reject-file', 'prefix', 'ifdef', 'fuzz', 'version-control', 'basename-prefix', 'suffix', 'get', 'quoting-style'] })
    writes([...files.slice(0, 1), ...optionValues(argv, /^-o$|^--output$/)], j)
    writesInto(optionValues(argv, /^-d$|^--directory$/), j)
  },
  unzip: (argv, j) => {
    writesInto(optionValues(argv, /^-d$/), j)
    if (!argv.some((w) => /^-[^-]*[lptvZ]/.test(w.value)) && !argv.some((w) => w.value === '-d') && j.cwd) writesInto([{ value: '.', literal: true }], j)
  },
  tar: (argv, j) => {
    const extracting = /^[^-]*x/.test(argv[1]?.value ?? '') || argv.some((w) => /^-[^-]*x|^--extract$|^--get$/.test(w.value))
    if (!extracting) return
    const dirs = optionValues(argv, /^-C$|^--directory$/)
    writesInto(dirs.length ? dirs : j.cwd ? [{ value: '.', literal: true }] : [], j)
  },
  truncate: (argv, j) => writes(split(argv).operands, j),
  sudoedit: (argv, j) => writes(split(argv).operands, j),
  curl: (argv, j) => {
    const spec = CURL_SHORT
    writes([...shortValues(argv, 'oDc', spec), ...optionValues(argv, /^--(?:output|dump-header|cookie-jar|trace|trace-ascii|stderr|libcurl|etag-save|hsts|alt-svc)$/)], j)
    writesInto(optionValues(argv, /^--output-dir$/), j)
  },
  wget: (argv, j) => {
    writes([...shortValues(argv, 'Ooa', WGET_SHORT), ...optionValues(argv, /^--(?:output-document|output-file|append-output|save-cookies)$/)], j)
    writesInto([...shortValues(argv, 'P', WGET_SHORT), ...optionValues(argv, /^--directory-prefix$/)], j)
  },
}

/** Options of cp, mv, ln and install that take a value (the rest are flags). */
const COPY_OPTIONS: Record<string, Getopt> = {
  cp: { arg: 'St', long: ['suffix', 'target-directory', 'sparse', 'no-preserve'] },
  mv: { arg: 'St', long: ['suffix', 'target-directory'] },
  ln: { arg: 'St', long: ['suffix', 'target-directory'] },
  install: { arg: 'gmoSt', long: ['group', 'mode', 'owner', 'suffix', 'target-directory', 'strip-program'] },
}

/**
 * A copy's target folders (`-t DIR`, `-tDIR`, `-vt DIR`, `--target-directory=DIR`, `--targ DIR`),
 * its other operands, and whether `-T` makes the last operand the destination itself.
 */
export function copyArgs(argv: Word[]): { dirs: Word[]; operands: Word[]; noTarget: boolean; modes: Word[] } {
  const name = basename(argv[0]?.value ?? '')
  const read = getopt(argv, Object.hasOwn(COPY_OPTIONS, name) ? COPY_OPTIONS[name]! : {})
  const modes = name === 'install' ? valuesOf(read, 'm', 'mode') : []
  return { dirs: valuesOf(read, 't', 'target-directory'), operands: read.operands, noTarget: hasOption(read, 'T', 'no-target-directory'), modes }
}

/** Where cp/install/ln write: the target folders, else the last operand. */
function copyTargets(argv: Word[]): Word[] {
  const { dirs, operands } = copyArgs(argv)
  return dirs.length ? dirs : operands.slice(-1)
}

/** Short options of curl and wget that take a value (a cluster such as `-sSLo FILE` ends at one). */
const CURL_SHORT = 'AbcCdDeEFHhKmoQrtTuUwxXyYzP'
const WGET_SHORT = 'OoaPeiBtTwQUYlARDIXd'

/** Values of the short options `letters` inside clusters (`-so F`, `-qO F`, `-oF`), given which letters take a value. */
function shortValues(argv: Word[], letters: string, takesValue: string): Word[] {
  const out: Word[] = []
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!.value
    if (w === '--') break
    if (!/^-[^-]/.test(w)) continue
    for (let k = 1; k < w.length; k++) {
      if (!takesValue.includes(w[k]!) && !letters.includes(w[k]!)) continue
      const value = k === w.length - 1 ? argv[i + 1] : { ...argv[i]!, value: w.slice(k + 1) }
      if (letters.includes(w[k]!) && value) out.push(value)
      if (k === w.length - 1) i++
      break
    }
  }
  return out
}

/** Operands of a command, skipping option values as `spec` says. */
function operandsOf(argv: Word[], spec: { arg?: string; long?: string[] }): Word[] {
  const out: Word[] = []
  let i = 1
  while (i < argv.length) {
    const next = skipOptions(argv, i, spec)
    if (next >= argv.length) break
    if (argv[next - 1]?.value === '--' && next > i) {
      out.push(...argv.slice(next))
      break
    }
    out.push(argv[next]!)
    i = next + 1
  }
  return out
}

/** Files an ex/vim command line opens (`+cmd` and the values of `-c`, `-S`, `-u` … are not files). */
function editorFiles(argv: Word[]): Word[] {
  return operandsOf(argv, { arg: 'cSuUiTwWrqt', long: ['cmd'] }).filter((w) => !w.value.startsWith('+'))
}

/** scp/rsync destinations on this machine (not `host:path`). */
function localDest(targets: Word[]): Word[] {
  return targets.filter((t) => !/^[^/]*:/.test(t.value))
}

/**
 * `ln [-s] TARGET… LINK` / `cp -s`: the link is a way to reach its target (`ln -s ~/.ssh k && cat
 * k/id_rsa`, `ln -s ~/.bashrc x; echo … >> x`), so a protected or secret target counts as written
 * (system locations only where they are configuration: linking /usr/bin/python3 is everyday).
 */
function linkTargets(argv: Word[], j: Judge): void {
  const { dirs, operands, noTarget } = copyArgs(argv)
  const targets = dirs.length ? operands : noTarget ? operands.slice(0, 1) : operands.length > 1 ? operands.slice(0, -1) : operands
  for (const t of targets) {
    for (const place of placesOf(t.value, j.cwd)) {
      const key = writeTargetKey(place, j.paths)
      if (key && (key !== 'system-config-write' || /^\/(?:etc|private\/etc|boot)(?:\/|$)/.test(place))) j.emit(key)
      if (isSecretRead(place, j.paths) || holdsSecrets(place, j.paths)) j.emit('secret-read')
    }
  }
}
