#!/usr/bin/env node
// The `agent` command. `--version` answers from package.json without loading anything else; `--help`
// is answered from a snapshot of the command registry when it is still valid; every other command
// loads the TypeScript CLI through the shared jiti loader (no --import loader: it would add a loader
// thread to every start).

import { readFileSync } from 'node:fs'
import { constants } from 'node:os'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)

// `agent … | head` closes the pipe early: that is the reader's choice, not an error to report.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}
const version = () => JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version

// The gateway runs for weeks: V8 would otherwise grow its young generation to 16 MiB per semi-space
// (measured: +24 MiB RSS over the first 1,000 API requests, none of it live data). 8 MiB is the
// balance (api-server bench): against 4 MiB, about 8 % less CPU per request (fewer scavenges, fewer
// short-lived request objects promoted) for a similar RSS once warm.
// The old generation is let grow to 1.6 × what the last full collection kept (V8 picks up to 4 ×
// when collections are quick): with ~30 MiB live, the API server's RSS otherwise climbed to
// 160-215 MiB of garbage awaiting collection over 8,000 requests; with it, 142-148 MiB (api-server
// bench, 4,000 requests of warm-up). The price, from --trace-gc under full load: a full collection
// every 0.5-0.7 s of about 15-20 ms, 3-4 % of the CPU. The flags must be given at process start,
// so `gateway run` starts itself once more with them.
const GATEWAY_V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=60']

function respawnWithFlags() {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ')
  if (args[0] !== 'gateway' || args[1] !== 'run' || given.includes('--max-semi-space-size') || process.env.AGENT_NO_RESPAWN) return undefined
  return import('node:child_process').then(({ spawn }) => new Promise((resolve) => {
    // Its own process group, so each signal reaches it once (forwarded from here); an IPC channel, so
    // it shuts down if this process disappears (even by SIGKILL).
    const child = spawn(process.execPath, [...GATEWAY_V8_FLAGS, ...process.execArgv, fileURLToPath(import.meta.url), ...args], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
    })
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.exitCode === null && child.kill(signal))
    child.on('error', (error) => {
      process.stderr.write(`agent: cannot start the gateway: ${error.message}\n`)
      resolve(1)
    })
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1)))
  }))
}

// Started by respawnWithFlags: when the parent goes away, stop as if told to.
if (process.send && process.env.AGENT_NO_RESPAWN === undefined && args[0] === 'gateway') {
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'))
  // The channel only watches the parent; it must not keep this process alive once the gateway stops.
  process.channel?.unref()
}

async function run() {
  const respawned = respawnWithFlags()
  if (respawned) {
    process.exitCode = await respawned
    return
  }
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
