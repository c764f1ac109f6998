// The runtime's settings are worked out again only when they may have changed: a moved revision
// (config.yaml, the project overlay, .env) is seen at once, this process's environment within
// REUSE_MS, and a value that fails its check fails every run until it is fixed (never kept).

import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import type { Settings } from '../../../sdk/index.ts'
import { REUSE_MS } from '../../../extensions/runtime/per-revision.ts'
import { runtimeSettings } from '../../../extensions/runtime/settings.ts'
import { compressionSettings } from '../../../extensions/runtime/context.ts'

function fakeSettings(options: { revisioned?: boolean } = {}) {
  const config: Record<string, unknown> = {}
  const env: Record<string, string> = {}
  let revision = 0
  let reads = 0
  const settings = {
    configPath: '/home/config.yaml',
    get: (key: string) => (reads++, config[key]),
    env: (name: string) => env[name],
    ...(options.revisioned === false ? {} : { revision: () => revision }),
  } as unknown as Settings
  return { settings, config, env, bump: () => void revision++, reads: () => reads }
}

test('kept while the revision stands; a moved revision is seen at once', () => {
  const f = fakeSettings()
  assert.equal(runtimeSettings(f.settings).maxIterations, 90)
  const reads = f.reads()
  assert.equal(runtimeSettings(f.settings).maxIterations, 90)
  assert.equal(f.reads(), reads, 'the second run read nothing')
  f.config['agent.max_iterations'] = 12
  f.bump()
  assert.equal(runtimeSettings(f.settings).maxIterations, 12)
  assert.throws(() => ((runtimeSettings(f.settings) as { maxIterations: number }).maxIterations = 1), TypeError, 'a kept value cannot be changed by a caller')
})

test('a bad value fails every run until it is fixed, and is never kept', () => {
  const f = fakeSettings()
  f.config['agent.max_iterations'] = -3
  assert.throws(() => runtimeSettings(f.settings), /agent\.max_iterations must be a positive integer/)
  assert.throws(() => runtimeSettings(f.settings), /agent\.max_iterations must be a positive integer/)
  f.config['compression.threshold'] = 2
  assert.throws(() => compressionSettings(f.settings), /compression\.threshold must be a number between 0\.1 and 0\.95/)
  assert.throws(() => compressionSettings(f.settings), /compression\.threshold/)
  f.config['agent.max_iterations'] = 7
  f.config['compression.threshold'] = 0.5
  f.bump()
  assert.equal(runtimeSettings(f.settings).maxIterations, 7)
  assert.equal(compressionSettings(f.settings).threshold, 0.5)
})

test('settings without a revision are read on every run; the environment is seen within REUSE_MS', async () => {
  const plain = fakeSettings({ revisioned: false })
  runtimeSettings(plain.settings)
  const reads = plain.reads()
  runtimeSettings(plain.settings)
  assert.ok(plain.reads() > reads, 'read again')

  const f = fakeSettings()
  assert.equal(runtimeSettings(f.settings).maxIterations, 90)
  f.env.AGENT_MAX_ITERATIONS = '5'
  await sleep(REUSE_MS + 20)
  assert.equal(runtimeSettings(f.settings).maxIterations, 5)
})
