// The sdk's typed errors are recognised across module copies (a marker, not instanceof), and the
// subclass checks go by code: an AgentError of another kind is not a ConfigError or a UsageError.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AgentError, ConfigError, UsageError } from '../../sdk/index.ts'

test('isInstance: any AgentError for AgentError, by code for ConfigError and UsageError', () => {
  const config = new ConfigError('bad config')
  const usage = new UsageError('bad usage')
  const provider = new AgentError('E_PROVIDER', 'down')
  assert.equal(AgentError.isInstance(provider), true)
  assert.equal(ConfigError.isInstance(config), true)
  assert.equal(ConfigError.isInstance(provider), false)
  assert.equal(ConfigError.isInstance(usage), false)
  assert.equal(UsageError.isInstance(usage), true)
  assert.equal(UsageError.isInstance(config), false)
  // A copy from another load of the module carries the same marker and code.
  const copy = Object.assign(new Error('elsewhere'), { code: 'E_CONFIG', [Symbol.for('agent.error')]: true })
  assert.equal(ConfigError.isInstance(copy), true)
  assert.equal(ConfigError.isInstance(new Error('plain')), false)
  assert.equal([config.exitCode, usage.exitCode, provider.exitCode].join(), '2,2,1')
})
