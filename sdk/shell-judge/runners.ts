// Package runners: programs that run a package's bin or a program on the PATH (`npx agent …`,
// `npm exec -- tsc`, `pnpm exec|dlx …`, `pnpm NAME`, `yarn NAME`, `yarn exec|run|dlx|node …`,
// `bunx`, `pnpx`; the language runners `bundle exec`, `poetry run`, `pipenv run`, `uv run`). What they run is judged as a command of its own (`npx agent mcp add …` is `agent
// mcp add …`), a `-c CMD` (`npx -c`, `npm exec -c`) or pnpm's shell mode as a script. Their options
// are read with programStarts: where an option's arity is not known, every reading is judged.

import { programStarts, type Judge, type Rule, type RunnerOptions } from './judge.ts'
import { literalWord, type Word } from './words.ts'

/** npm's options (npx, npm exec) that take no value or a value; others may be either. */
const NPM: RunnerOptions = {
  switches: ['yes', 'y', 'no', 'no-install', 'quiet', 'q', 'silent', 's', 'prefer-offline', 'prefer-online', 'offline', 'ignore-scripts', 'legacy-peer-deps', 'force', 'f', 'global', 'g', 'workspaces', 'ws', 'include-workspace-root', 'foreground-scripts', 'dry-run', 'json', 'verbose', 'd'],
  values: ['package', 'p', 'call', 'c', 'cache', 'userconfig', 'globalconfig', 'shell', 'script-shell', 'registry', 'loglevel', 'workspace', 'w', 'prefix', 'node-options', 'tag', 'otp', 'scope', 'cafile', 'include', 'omit', 'location'],
}
/** pnpm's options (before its command, and of exec and dlx: `-c` / `--shell-mode` runs the rest through a shell); yarn's. */
const PNPM: RunnerOptions = {
  switches: ['recursive', 'r', 'workspace-root', 'w', 'silent', 's', 'parallel', 'stream', 'aggregate-output', 'no-bail', 'shell-mode', 'c', 'report-summary', 'reverse', 'include-workspace-root', 'fail-if-no-match'],
  values: ['filter', 'F', 'dir', 'C', 'loglevel', 'reporter', 'package', 'resume-from', 'allow-build', 'workspace-concurrency', 'test-pattern', 'changed-files-ignore-pattern'],
}
const YARN: RunnerOptions = {
  switches: ['silent', 's', 'verbose', 'offline', 'prefer-offline', 'frozen-lockfile', 'ignore-engines', 'top-level', 'T', 'binaries-only', 'B', 'quiet', 'q', 'no-progress', 'non-interactive', 'json'],
  values: ['cwd', 'modules-folder', 'cache-folder', 'mutex', 'network-timeout', 'registry', 'package', 'p', 'use-yarnrc', 'link-folder', 'global-folder'],
}
/** Language runners' options (before and after their `exec`/`run`); any other option is read both ways. */
const BUNDLE: RunnerOptions = { switches: ['verbose', 'no-color', 'keep-file-descriptors', 'V'], values: ['gemfile', 'retry'] }
const POETRY: RunnerOptions = { switches: ['q', 'quiet', 'v', 'vv', 'vvv', 'verbose', 'n', 'no-interaction', 'no-plugins', 'no-cache', 'ansi', 'no-ansi'], values: ['C', 'directory', 'P', 'project'] }
const PIPENV: RunnerOptions = { switches: ['v', 'verbose', 'q', 'quiet', 'system'], values: ['python'] }
const UV: RunnerOptions = {
  switches: ['q', 'quiet', 'v', 'verbose', 'frozen', 'locked', 'no-sync', 'isolated', 'no-project', 'all-extras', 'all-packages', 'no-dev', 'active', 'offline', 'no-cache', 'exact', 'no-config', 'no-env-file', 'native-tls', 'preview', 's', 'script'],
  values: ['with', 'with-requirements', 'with-editable', 'python', 'p', 'project', 'directory', 'package', 'extra', 'group', 'only-group', 'no-group', 'env-file', 'index', 'default-index', 'index-url', 'extra-index-url', 'cache-dir', 'config-file', 'color'],
}
/** pnpm's own commands: any other command name is a script or a program (`pnpm eslint .` is `pnpm exec eslint .`). */
const PNPM_COMMANDS = new Set('add audit approve-builds bin c cat-file cat-index completion config create dedupe deploy doctor env fetch find-hash get help i ignored-builds import init install install-test it la licenses link list ll ln ls m multi outdated pack patch patch-commit patch-remove prune publish rb rebuild recursive remove restart rm root run run-script sbom self-update server set setup start store t test tst un uninstall unlink up update upgrade version why'.split(' '))
/** yarn's own commands (classic and berry): any other name runs a script or a bin. */
const YARN_COMMANDS = new Set('access add audit autoclean bin cache check config constraints create dedupe explain generate-lock-entry global help import info init install licenses link list login logout npm outdated owner pack patch patch-commit plugin policies publish rebuild remove search set stage tag team unlink unplug up upgrade upgrade-interactive version versions why workspaces'.split(' '))

/** A package spec names its bin without the version (`agent@latest`, `@scope/agent@1`). */
const withoutVersion = (w: Word): Word => ({ ...w, value: w.value.replace(/^(@?[^@]+)@[^@/]*$/, '$1') })

/**
 * Judges what a runner runs, its options read from `from`: `-c CMD` / `--call CMD` as a script, pnpm's
 * shell mode as a script of the rest, else the program at every place it may start. `npm exec` takes
 * options after the program as its own too (up to a `--`, see npmArguments).
 */
function runs(argv: Word[], from: number, spec: RunnerOptions, j: Judge, via: string[], npm = false): void {
  let shellMode = false
  const starts = programStarts(argv, from, spec, (at) => {
    const w = argv[at]!
    const call = /^--call=/.test(w.value) ? { ...w, value: w.value.slice(7) } : /^(?:-c|--call)$/.test(w.value) && spec === NPM ? argv[at + 1] : undefined
    if (call) j.script(call)
    if (spec === PNPM && /^(?:-c|--shell-mode)$/.test(w.value)) shellMode = true
  })
  for (const at of starts) {
    const program = withoutVersion(argv[at]!)
    // After npm's own `--` every word is the program's.
    const readings = npm && argv[at - 1]?.value !== '--' ? npmArguments(argv.slice(at + 1), 0, [], []) : [argv.slice(at + 1)]
    if (!readings) j.emit('dynamic-command')
    for (const args of readings ?? [argv.slice(at + 1)]) {
      const words = [program, ...args]
      if (shellMode) j.script({ value: words.map((w) => w.value).join(' '), literal: words.every((w) => w.literal) })
      else j.argv(words, via)
    }
  }
}

/** More readings than this of npm's options after the program: its arguments are taken as not known. */
const MAX_READINGS = 32

/**
 * The arguments npm passes on after `npm exec PROGRAM`: npm reads every option up to `--` as its own
 * (and drops the `--`). A listed value option takes the next word unless it is an option; any other
 * option may take it or not: every reading, or undefined when there are too many.
 */
function npmArguments(words: Word[], i: number, kept: Word[], out: Word[][]): Word[][] | undefined {
  if (out.length > MAX_READINGS) return undefined
  const w = words[i]?.value
  if (w === undefined || w === '--') return out.push([...kept, ...words.slice(i + 1)]), out
  if (!w.startsWith('-') || w === '-') return npmArguments(words, i + 1, [...kept, words[i]!], out)
  const name = w.replace(/^--?/, '')
  const next = words[i + 1]?.value
  const takes = w.includes('=') || NPM.switches.includes(name) || next === undefined || next === '--' ? [false] : NPM.values.includes(name) && !next.startsWith('-') ? [true] : [false, true]
  for (const take of takes) if (!npmArguments(words, i + (take ? 2 : 1), kept, out)) return undefined
  return out
}

/** The command words a runner's command name leads to: an own command (`install`) runs no program. */
function byCommand(argv: Word[], spec: RunnerOptions, command: (name: string, at: number) => void): void {
  for (const at of programStarts(argv, 1, spec)) if (argv[at]!.literal) command(argv[at]!.value, at)
}

/** `RUNNER [options] VERB [options] PROGRAM …` (`bundle exec`, `poetry run`): PROGRAM as a command of its own. */
const runsAfter = (verb: string, spec: RunnerOptions, name: string): Rule => (argv, j, via) => byCommand(argv, spec, (command, at) => command === verb && runs(argv, at + 1, spec, j, [...via, name]))

export const RUNNERS: Record<string, Rule> = {
  bundle: runsAfter('exec', BUNDLE, 'bundle'),
  poetry: runsAfter('run', POETRY, 'poetry'),
  pipenv: runsAfter('run', PIPENV, 'pipenv'),
  uv: runsAfter('run', UV, 'uv'),
  npx: (argv, j, via) => runs(argv, 1, NPM, j, [...via, 'npx']),
  bunx: (argv, j, via) => runs(argv, 1, NPM, j, [...via, 'bunx']),
  pnpx: (argv, j, via) => runs(argv, 1, PNPM, j, [...via, 'pnpx']),
  npm: (argv, j, via) => byCommand(argv, NPM, (name, at) => /^(?:exec|x)$/.test(name) && runs(argv, at + 1, NPM, j, [...via, 'npm'], true)),
  pnpm: (argv, j, via) =>
    byCommand(argv, PNPM, (name, at) => {
      if (name === 'exec' || name === 'dlx') runs(argv, at + 1, PNPM, j, [...via, 'pnpm'])
      else if (!PNPM_COMMANDS.has(name)) j.argv(argv.slice(at), [...via, 'pnpm'])
    }),
  yarn: (argv, j, via) =>
    byCommand(argv, YARN, (name, at) => {
      if (/^(?:exec|run|dlx)$/.test(name)) runs(argv, at + 1, YARN, j, [...via, 'yarn'])
      else if (name === 'node') j.argv([literalWord('node'), ...argv.slice(at + 1)], [...via, 'yarn'])
      // `yarn workspace NAME COMMAND …`: a yarn command in that workspace.
      else if (name === 'workspace') j.argv([argv[0]!, ...argv.slice(at + 2)], via)
      else if (!YARN_COMMANDS.has(name)) j.argv(argv.slice(at), [...via, 'yarn'])
    }),
}
