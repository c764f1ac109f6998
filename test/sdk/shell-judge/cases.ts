// Shared checks for the shell-judge case tables: commands that must get a finding (with its key, in
// its tier) and harmless look-alikes that must get none. Commands are only judged, never run.

import assert from 'node:assert/strict'
import { assessCommand, FINDINGS, type FindingKey } from '../../../sdk/shell-judge/index.ts'

const OPTIONS = { agentHome: '/home/u/.agent' }

export async function keysOf(command: string): Promise<{ never: string[]; dangerous: string[] }> {
  const a = await assessCommand(command, OPTIONS)
  return { never: a.neverAllowed.map((f) => f.key), dangerous: a.dangerous.map((f) => f.key) }
}

/** Every command is flagged with its key, in the key's tier. */
export async function assertFlagged(cases: ReadonlyArray<readonly [string, FindingKey]>): Promise<void> {
  const failures: string[] = []
  for (const [command, key] of cases) {
    const found = await keysOf(command)
    const tier = FINDINGS[key].tier === 'never' ? found.never : found.dangerous
    if (!tier.includes(key)) failures.push(`${JSON.stringify(command)}: wanted ${key}, got never=[${found.never}] dangerous=[${found.dangerous}]`)
  }
  assert.deepEqual(failures, [])
}

/** No command gets any finding. */
export async function assertHarmless(commands: readonly string[]): Promise<void> {
  const failures: string[] = []
  for (const command of commands) {
    const found = await keysOf(command)
    if (found.never.length || found.dangerous.length) failures.push(`${JSON.stringify(command)}: never=[${found.never}] dangerous=[${found.dangerous}]`)
  }
  assert.deepEqual(failures, [])
}
