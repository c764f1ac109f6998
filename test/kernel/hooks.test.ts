import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HookTable, normaliseTap } from '../../kernel/hooks.ts'
import { createLogger } from '../../kernel/log.ts'

function table(lines: string[] = []) {
  return new HookTable(createLogger('test', { level: 'debug', sink: { write: (l) => lines.push(l) } }))
}

test('taps run by stage, not by registration order', async () => {
  const hooks = table()
  const order: string[] = []
  hooks.add([normaliseTap('ready', 'late', 'promise', { stage: 10 }, async () => void order.push('late'))])
  hooks.add([normaliseTap('ready', 'early', 'promise', { stage: -10 }, async () => void order.push('early'))])
  await hooks.current().ready.promise({ mode: 'command' })
  assert.deepEqual(order, ['early', 'late'])
})

test('waterfall passes the rewritten value; undefined keeps it', async () => {
  const hooks = table()
  hooks.add([
    normaliseTap('afterToolCall', 'a', 'promise', async (outcome: any) => ({ ...outcome, result: outcome.result + '!' })),
    normaliseTap('afterToolCall', 'b', 'promise', async () => undefined),
  ])
  const out = await hooks.current().afterToolCall.promise({ ok: true, result: 'done' }, {} as never)
  assert.equal(out.result, 'done!')
})

test('bail: the first answer wins; a throwing tap rejects with hook and extension names', async () => {
  const hooks = table()
  hooks.add([normaliseTap('beforeToolCall', 'guard', 'promise', async (e: any) => (e.tool === 'rm' ? { block: true, reason: 'no' } : undefined))])
  assert.deepEqual(await hooks.current().beforeToolCall.promise({ tool: 'rm' } as never), { block: true, reason: 'no' })
  assert.equal(await hooks.current().beforeToolCall.promise({ tool: 'ls' } as never), undefined)
  hooks.add([normaliseTap('beforeToolCall', 'broken', 'promise', async () => { throw new Error('boom') })])
  await assert.rejects(hooks.current().beforeToolCall.promise({ tool: 'ls' } as never), /hook beforeToolCall: tap of extension "broken" failed: boom/)
})

test('observe errors are reported, never thrown', async () => {
  const lines: string[] = []
  const hooks = table(lines)
  hooks.add([normaliseTap('observe', 'noisy', 'promise', async () => { throw new Error('bad observer') })])
  await hooks.current().observe.promise({ type: 'x', at: 0 })
  assert.match(lines.join('\n'), /bad observer/)
})

test('sync taps: a value passes on, a throw is wrapped (or reported for observe), a returned promise is awaited', async () => {
  const lines: string[] = []
  const hooks = table(lines)
  hooks.add([normaliseTap('beforeModelRequest', 'plain', 'sync', (request: any) => ({ ...request, model: 'rewritten' }))])
  assert.equal((await hooks.current().beforeModelRequest.promise({ model: 'm', messages: [] } as never, {}))?.model, 'rewritten')
  hooks.add([normaliseTap('beforeModelRequest', 'late', 'sync', (request: any) => new Promise((resolve) => setTimeout(() => resolve({ ...request, model: 'later' }), 5)))])
  assert.equal((await hooks.current().beforeModelRequest.promise({ model: 'm', messages: [] } as never, {}))?.model, 'later')
  hooks.add([normaliseTap('beforeToolCall', 'thrower', 'sync', () => { throw new Error('sync boom') })])
  await assert.rejects(hooks.current().beforeToolCall.promise({ tool: 'ls' } as never), /hook beforeToolCall: tap of extension "thrower" failed: sync boom/)
  hooks.add([normaliseTap('beforeToolCall', 'rejecter', 'sync', () => Promise.reject(new Error('late boom')))])
  hooks.removeOwner('thrower')
  await assert.rejects(hooks.current().beforeToolCall.promise({ tool: 'ls' } as never), /tap of extension "rejecter" failed: late boom/)

  let seen = 0
  hooks.add([normaliseTap('observe', 'sync-noisy', 'sync', () => { throw new Error('sync observer') })])
  hooks.add([normaliseTap('observe', 'counter', 'sync', () => void seen++)])
  await hooks.current().observe.promise({ type: 'x', at: 0 })
  assert.equal(seen, 1, 'the other observers still ran')
  assert.match(lines.join('\n'), /tap of extension "sync-noisy" failed: sync observer/)
})

test('removing an owner rebuilds the table without its taps', async () => {
  const hooks = table()
  const calls: string[] = []
  hooks.add([normaliseTap('ready', 'a', 'promise', async () => void calls.push('a')), normaliseTap('ready', 'b', 'promise', async () => void calls.push('b'))])
  const before = hooks.current()
  hooks.removeOwner('a')
  assert.notEqual(hooks.current(), before)
  await hooks.current().ready.promise({ mode: 'command' })
  assert.deepEqual(calls, ['b'])
})

test('log lines never carry secrets or phone numbers', async () => {
  const { createLogger } = await import('../../kernel/log.ts')
  const lines: string[] = []
  const log = createLogger('sms', { level: 'debug', sink: { write: (l) => lines.push(l) }, secrets: () => ['hunter2-secret'] })
  log.info('reply to +15551234567 with token hunter2-secret and key sk-abcdefghijklmnop at 1732212345678')
  assert.equal(lines[0], '[sms] info: reply to +155****4567 with token *** and key *** at 1732212345678')
})

test('observe calls every observer by stage, and settles once the slow ones have', async () => {
  const hooks = table()
  const seen: string[] = []
  let finish!: () => void
  const slow = new Promise<void>((resolve) => (finish = resolve))
  hooks.add([normaliseTap('observe', 'late', 'sync', { stage: 5 }, () => void seen.push('late'))])
  hooks.add([normaliseTap('observe', 'slow', 'promise', async () => { await slow; seen.push('slow done') })])
  hooks.add([normaliseTap('observe', 'early', 'sync', { stage: -5 }, () => void seen.push('early'))])
  let settled = false
  const call = hooks.current().observe.promise({ type: 'x', at: 0 }).then(() => (settled = true))
  assert.deepEqual(seen, ['early', 'late'], 'called at once, in stage order')
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(settled, false, 'a running observer is waited for')
  finish()
  await call
  assert.deepEqual(seen, ['early', 'late', 'slow done'])
  hooks.removeOwner('slow')
  assert.equal(await hooks.current().observe.promise({ type: 'y', at: 0 }), undefined)
  assert.deepEqual(seen.slice(3), ['early', 'late'])
})
