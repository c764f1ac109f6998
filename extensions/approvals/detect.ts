// Dangerous-command detection: normalises a command (de-obfuscation of the usual tricks: quotes
// split inside words, line continuations, `${HOME}`, Unicode look-alikes) and matches it against the
// never-allowed and dangerous pattern lists.

import { DANGEROUS, NEVER_ALLOWED, type CommandPattern } from './patterns.ts'

export interface Finding {
  key: string
  description: string
}

export interface Assessment {
  neverAllowed: Finding[]
  dangerous: Finding[]
}

export function normaliseCommand(command: string): string {
  return command
    .normalize('NFKC')
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .replace(/\\\r?\n/g, ' ')
    .replace(/\$\{(\w+)\}/g, '$$$1')
    // `r''m`, `"rm"`, `r\m`: quotes and escapes inside words change nothing to the shell.
    .replace(/(["'])(.*?)\1/g, '$2')
    .replace(/\\(?=[A-Za-z/~])/g, '')
    .replace(/[ \t]+/g, ' ')
}

function matches(list: readonly CommandPattern[], text: string): Finding[] {
  return list.filter((p) => p.pattern.test(text)).map(({ key, description }) => ({ key, description }))
}

export function assessCommand(command: string): Assessment {
  const text = normaliseCommand(command)
  return { neverAllowed: matches(NEVER_ALLOWED, text), dangerous: matches(DANGEROUS, text) }
}
