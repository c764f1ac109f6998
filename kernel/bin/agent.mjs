#!/usr/bin/env node
// The `agent` command. `--version` answers from package.json without loading anything else; every
// other command loads the TypeScript CLI through the shared jiti loader (no --import loader: it
// would add a loader thread to every start).

import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`${pkg.version}\n`)
} else {
  const { sharedJiti, AGENT_ROOT } = await import('../loader/bootstrap.mjs')
  const { main } = await sharedJiti().import(`${AGENT_ROOT}/kernel/cli/main.ts`)
  process.exitCode = await main(args)
}
