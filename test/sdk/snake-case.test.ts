// snakeCaseKeys: the --json printers' key conversion (keys only, camelCase only, every depth).

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { snakeCaseKey, snakeCaseKeys } from '../../sdk/snake-case.ts'

test('camelCase keys become snake_case at every depth; values and other keys stay', () => {
  assert.equal(snakeCaseKey('pidFile'), 'pid_file')
  assert.equal(snakeCaseKey('nextAttemptAt'), 'next_attempt_at')
  for (const same of ['session_id', 'OPENAI_API_KEY', 'name', 'a.b', 'x']) assert.equal(snakeCaseKey(same), same)
  assert.deepEqual(snakeCaseKeys({ serviceName: 'agent-gateway', adapters: [{ lastError: 'userId is wrong', state: 'running' }], note: null }), {
    service_name: 'agent-gateway',
    adapters: [{ last_error: 'userId is wrong', state: 'running' }],
    note: null,
  })
  const when = new Date(0)
  assert.equal((snakeCaseKeys({ at: when }) as { at: Date }).at, when, 'non-plain objects pass through')
})
