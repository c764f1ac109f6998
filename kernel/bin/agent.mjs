#!/usr/bin/env node
// The `agent` command. `--version` answers from package.json without loading anything else; `--help`
// is answered from a snapshot of the command registry when it is still valid; every other command
// loads the TypeScript CLI through the shared jiti loader (no --import loader: it would add a loader
// thread to every start).

import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)

// `agent … | head` closes the pipe early: that is the reader's choice, not an error to report.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}
const version = () => JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version

async function run() {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${version()}\n`)
    return
  }
  if (args.includes('--help') || args.includes('-h')) {
    const [{ helpFromSnapshot }, { resolveAgentHome }] = await Promise.all([import('../cli/help-snapshot.mjs'), import('../config/home.mjs')])
    const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
    const served = await helpFromSnapshot({ args, home: resolveAgentHome(), root, cwd: process.cwd(), env: process.env, version: version(), stdout: process.stdout }).catch(() => false)
    if (served) return
  }
  const { sharedJiti, AGENT_ROOT } = await import('../loader/bootstrap.mjs')
  const { main } = await sharedJiti().import(`${AGENT_ROOT}/kernel/cli/main.ts`)
  process.exitCode = await main(args)
}

await run()
