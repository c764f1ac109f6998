// Without traces asked for, the telemetry extension offers no span service (withSpan then runs the
// work directly, nothing per span), yet still loads and records metrics from observe events.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { withSpan } from '../../../sdk/index.ts'
import { createTestKernel } from '../../../sdk/testing/index.ts'
import { tracesWanted } from '../../../extensions/telemetry/traces-wanted.ts'

test('no OTEL_* variables asking for traces: no telemetry service, spans are plain calls', async (t) => {
  if (tracesWanted(process.env)) return t.skip('this process has OTEL_* variables asking for traces')
  const host = await createTestKernel({ builtins: ['telemetry'] })
  t.after(host.close)
  assert.equal(host.kernel.extensions().some((e) => e.name === 'telemetry'), true)
  assert.equal(host.kernel.services.get('telemetry'), undefined)
  let named = ''
  const answer = await withSpan(host.kernel.services, 'work', {}, async (span) => {
    span.rename('renamed')
    named = 'ran'
    return 42
  })
  assert.equal(answer, 42)
  assert.equal(named, 'ran')
})
