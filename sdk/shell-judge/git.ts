// git: subcommands that destroy history or work (`push --force`, `reset --hard`, `clean -f`,
// `branch -D`), settings that run commands or make a later step destructive (`-c`, `git config`),
// options and subcommands whose value is a command git runs, and where `git clone` writes.

import { gitConfig } from './interpreters.ts'
import { longIs, optionValues, split, type Judge, type Rule } from './judge.ts'
import { basename, skipOptions } from './wrappers.ts'
import { writes } from './writers.ts'
import type { Word } from './words.ts'

/** `git -c KEY=VALUE` settings that make a later git step destructive. */
const DESTRUCTIVE_GIT_CONFIG = /^(?:clean\.requireforce=(?:false|no|off|0)|remote\..+\.(?:mirror=(?:true|yes|on|1)|push=\+.*))$/i

export const git: Rule = (argv, j) => {
  const spec = { arg: 'Cc', long: ['git-dir', 'work-tree', 'namespace', 'exec-path', 'config-env', 'super-prefix', 'list-cmds', 'attr-source'] }
  const i = skipOptions(argv, 1, spec)
  const sub = argv[i]?.value
  const { operands, flags, longs } = split(argv, i + 1)
  const configs = optionValues(argv.slice(0, i), /^-c$|^--config-env$/)
  // `git -C DIR`: paths below are in DIR.
  const here = optionValues(argv.slice(0, i), /^-C$/).reduce<Judge>((at, dir) => ({ ...at, cwd: /^[/~]/.test(dir.value) ? dir.value : at.cwd ? `${at.cwd}/${dir.value}` : dir.value }), j)
  const configured = (re: RegExp) => configs.some((c) => re.test(c.value.replace(/\s+/g, '')))
  const has = (...names: string[]) => names.some((n) => longIs(longs, n))
  const destructive =
    (sub === 'push' && (/[fd]/.test(flags) || has('force', 'force-with-lease', 'mirror', 'delete', 'prune') || operands.some((o) => /^[+:]/.test(o.value)) || configured(/^remote\..+\.(?:mirror|push)=/i))) ||
    (sub === 'reset' && has('hard')) ||
    (sub === 'clean' && (/f/.test(flags) || has('force') || configured(/^clean\.requireforce=/i))) ||
    (sub === 'branch' && (/D/.test(flags) || (has('delete') && has('force')) || (/d/.test(flags) && /f/.test(flags))))
  if (destructive) j.emit('git-destructive')
  if (sub === 'config') gitConfigWrite(argv.slice(i + 1), here)
  for (const config of configs) gitConfig(config, j)
  if (operands.some((o) => /^ext::/i.test(o.value)) || configured(/^protocol\.(?:ext\.)?allow=always/i)) j.emit('inline-script')
  // Options whose value is a command git runs.
  const rest = argv.slice(i + 1)
  const commandOption: Record<string, RegExp> = {
    fetch: /^(?:--upload-pack|--exec)$/,
    pull: /^(?:--upload-pack|--exec)$/,
    clone: /^(?:--upload-pack|-u)$/,
    'ls-remote': /^(?:--upload-pack|--exec)$/,
    push: /^(?:--receive-pack|--exec)$/,
    'send-pack': /^(?:--receive-pack|--exec)$/,
    'fetch-pack': /^(?:--upload-pack|--exec)$/,
    archive: /^--exec$/,
    rebase: /^(?:--exec|-x)$/,
    difftool: /^(?:--extcmd|-x)$/,
    mergetool: /^(?:--extcmd|-x)$/,
    grep: /^(?:--open-files-in-pager|-O)$/,
    'filter-branch': /^--(?:env|tree|index|parent|msg|commit|tag-name)-filter$/,
    'filter-repo': /^--(?:\w+-callback)$/,
  }
  const option = sub && Object.hasOwn(commandOption, sub) ? commandOption[sub] : undefined
  if (option) for (const value of optionValues(rest, option)) j.script(value)
  if (sub === 'rebase' && rest.some((w) => /^-[^-]*x./.test(w.value))) j.emit('inline-script')
  if (sub === 'grep' && rest.some((w) => /^-O./.test(w.value))) j.emit('inline-script')
  if (sub === 'submodule' && operands[0]?.value === 'foreach') {
    const body = rest.slice(rest.findIndex((w) => w.value === 'foreach') + 1).filter((w) => !/^--(?:recursive|quiet)$|^-q$/.test(w.value))
    if (body.length) j.script({ value: body.map((w) => w.value).join(' '), literal: body.every((w) => w.literal) })
  }
  if (sub === 'bisect' && operands[0]?.value === 'run') j.argv(rest.slice(rest.findIndex((w) => w.value === 'run') + 1), ['git'])
  if (sub === 'clone') {
    const [url, dest] = split(argv.slice(i), 1).operands.filter((w, k, all) => !/^(?:-[ocbju]|--(?:origin|branch|depth|reference|separate-git-dir|config|template|jobs|filter|shallow-since|shallow-exclude|server-option))$/.test(all[k - 1]?.value ?? ''))
    const target = dest ?? (url ? { ...url, value: basename(url.value.replace(/\/+$/, '')).replace(/\.git$/, '') } : undefined)
    if (target) writes([target], here)
  }
}

/** `git config [--global|-f FILE|…] [set|--add|…] KEY VALUE`: the setting, and the file it writes. */
function gitConfigWrite(args: Word[], j: Judge): void {
  const operands: Word[] = []
  for (let k = 0; k < args.length; k++) {
    const w = args[k]!.value
    if (/^(?:-f|--file|--blob|-t|--type|--default|--comment|--value|--fixed-value)$/.test(w)) {
      if (/^(?:-f|--file)$/.test(w) && args[k + 1]) writes([args[k + 1]!], j)
      k++
    } else if (/^--file=/.test(w)) writes([{ ...args[k]!, value: w.slice(7) }], j)
    else if (/^-f./.test(w)) writes([{ ...args[k]!, value: w.slice(2) }], j)
    else if (!w.startsWith('-')) operands.push(args[k]!)
  }
  // The subcommand syntax of git 2.46 (`git config set KEY VALUE`): a key always has a dot.
  let kv = operands
  if (operands[0] && !operands[0].value.includes('.')) {
    if (operands[0].value !== 'set') return
    kv = operands.slice(1)
  }
  if (kv.length < 2) return
  const setting = { ...kv[1]!, value: `${kv[0]!.value}=${kv[1]!.value}` }
  gitConfig(setting, j)
  if (DESTRUCTIVE_GIT_CONFIG.test(setting.value.replace(/\s+/g, ''))) j.emit('git-destructive')
}
