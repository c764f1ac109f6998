import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assessCommand, FINDINGS } from '../../../sdk/shell-judge/index.ts'
import { ALLOWED_BY_POLICY, DANGEROUS, HARMLESS, REFUSED_DESPITE_POLICY } from './command-cases.ts'

const keysOf = async (command: string) => {
  const a = await assessCommand(command, { agentHome: '/home/u/.agent' })
  return { never: a.neverAllowed.map((f) => f.key), dangerous: a.dangerous.map((f) => f.key) }
}

/** What the guard does with an allowlist: never-allowed always blocks; dangerous keys need approval. */
const passes = async (command: string, allowlist: string[]) => {
  const { never, dangerous } = await keysOf(command)
  return never.length === 0 && dangerous.every((k) => allowlist.includes(k))
}

test('the case table is large enough and names only known keys', () => {
  assert.ok(DANGEROUS.length >= 80, `${DANGEROUS.length} dangerous cases`)
  assert.ok(HARMLESS.length >= 40, `${HARMLESS.length} harmless cases`)
  for (const [command, key] of DANGEROUS) assert.ok(key in FINDINGS, `${command}: unknown key ${key}`)
})

test('every dangerous variant is flagged with its key, in its tier', async () => {
  const failures: string[] = []
  for (const [command, key] of DANGEROUS) {
    const found = await keysOf(command)
    const tier = FINDINGS[key as keyof typeof FINDINGS].tier === 'never' ? found.never : found.dangerous
    if (!tier.includes(key)) failures.push(`${JSON.stringify(command)}: wanted ${key}, got never=[${found.never}] dangerous=[${found.dangerous}]`)
    if (await passes(command, [])) failures.push(`${JSON.stringify(command)} passes with an empty allowlist`)
  }
  assert.deepEqual(failures, [])
})

test('no harmless look-alike is flagged', async () => {
  const failures: string[] = []
  for (const command of HARMLESS) {
    const found = await keysOf(command)
    if (found.never.length || found.dangerous.length) failures.push(`${JSON.stringify(command)}: never=[${found.never}] dangerous=[${found.dangerous}]`)
  }
  assert.deepEqual(failures, [])
})

test('policy: an allowlist lets its own findings pass, never the never-allowed tier or other findings', async () => {
  for (const [command, allowlist] of ALLOWED_BY_POLICY) assert.ok(await passes(command, allowlist), `${command} with ${allowlist}`)
  for (const [command, allowlist] of REFUSED_DESPITE_POLICY) assert.ok(!(await passes(command, allowlist)), `${command} with ${allowlist}`)
})
