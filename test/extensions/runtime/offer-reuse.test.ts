// The offered tool list is reused between runs only while nothing it depends on can have changed:
// the registered tools and the tools.enabled / tools.disabled lists are compared on every call, a
// tool's own availability (settings, .env) is asked again once the offer is OFFER_REUSE_MS old.

import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import type { ExtensionApi, ToolDefinition } from '../../../sdk/index.ts'
import { OFFER_REUSE_MS, offeredTools } from '../../../extensions/runtime/tools.ts'

function fakeApi() {
  let up = true
  let asked = 0
  const config: Record<string, unknown> = {}
  const tool = (name: string, extra: Partial<ToolDefinition> = {}) => ({ name, description: name, parameters: { type: 'object' }, execute: async () => '', ...extra }) as unknown as ToolDefinition
  const entries = [
    { owner: 'a', value: tool('zeta') },
    { owner: 'a', value: tool('alpha', { available: () => (asked++, up || 'down') }) },
  ]
  const api = {
    tools: { entries: () => [...entries] },
    settings: { get: (key: string) => config[key] },
  } as unknown as ExtensionApi<any>
  return { api, entries, config, tool, setUp: (v: boolean) => void (up = v), asked: () => asked }
}

const names = (api: ExtensionApi<any>, options = {}) => offeredTools(api, options).map((t) => t.definition.name)

test('a second run right after the first reuses the offer without asking the tools again', () => {
  const f = fakeApi()
  assert.deepEqual(names(f.api), ['alpha', 'zeta'])
  assert.deepEqual(names(f.api), ['alpha', 'zeta'])
  assert.equal(f.asked(), 1)
  // Other options are another offer.
  assert.deepEqual(names(f.api, { disableTools: ['zeta'] }), ['alpha'])
  assert.equal(f.asked(), 2)
})

test('a tool registered or removed, or tools.disabled changed, is seen at once', () => {
  const f = fakeApi()
  assert.deepEqual(names(f.api), ['alpha', 'zeta'])
  f.entries.push({ owner: 'b', value: f.tool('mid') })
  assert.deepEqual(names(f.api), ['alpha', 'mid', 'zeta'])
  f.entries.splice(0, 1)
  assert.deepEqual(names(f.api), ['alpha', 'mid'])
  f.config['tools.disabled'] = ['mid']
  assert.deepEqual(names(f.api), ['alpha'])
  f.config['tools.disabled'] = []
  f.config['tools.enabled'] = ['mid']
  assert.deepEqual(names(f.api), ['alpha', 'mid'])
})

test('a change of availability is seen once the offer is older than the reuse window', async () => {
  const f = fakeApi()
  assert.deepEqual(names(f.api), ['alpha', 'zeta'])
  f.setUp(false)
  await sleep(OFFER_REUSE_MS + 20)
  assert.deepEqual(names(f.api), ['zeta'])
  f.setUp(true)
  await sleep(OFFER_REUSE_MS + 20)
  assert.deepEqual(names(f.api), ['alpha', 'zeta'])
})
