import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Registry } from '../../kernel/registry.ts'

test('a taken name is an error naming both owners', () => {
  const r = new Registry<{ name: string }>('tool', (t) => t.name)
  r.add('alpha', { name: 'read_file' })
  assert.throws(() => r.add('beta', { name: 'read_file' }), /tool "read_file" of extension "beta" is already registered by extension "alpha"/)
})

test('aliases are names too', () => {
  const r = new Registry<{ name: string; aliases?: string[] }>('command', (c) => c.name, (c) => c.aliases ?? [])
  r.add('core', { name: 'new', aliases: ['reset'] })
  assert.equal(r.get('reset')?.name, 'new')
  assert.throws(() => r.add('other', { name: 'reset' }), /command "reset" of extension "other" is already registered by extension "core"/)
  assert.throws(() => r.add('other', { name: 'fresh', aliases: ['new'] }), /"new"/)
})

test('deleteByOwner removes only that owner and notifies subscribers', () => {
  const r = new Registry<{ name: string }>('tool', (t) => t.name)
  let notified = 0
  r.subscribe(() => notified++)
  r.add('a', { name: 'x' })
  r.add('b', { name: 'y' })
  notified = 0
  assert.equal(r.deleteByOwner('a'), 1)
  assert.deepEqual(r.list().map((t) => t.name), ['y'])
  assert.equal(notified, 1)
  assert.equal(r.ownerOf('y'), 'b')
})

test('entries() follows every change, and what a caller does to its array stays with it', () => {
  const registry = new Registry<{ name: string }>('tool', (t) => t.name)
  registry.add('a', { name: 'one' })
  const first = registry.entries()
  first.sort(() => -1).push({ owner: 'x', value: { name: 'intruder' } })
  assert.deepEqual(registry.entries().map((e) => e.value.name), ['one'], 'a sorted or extended copy changes nothing')
  assert.throws(() => ((registry.entries()[0] as { owner: string }).owner = 'b'), TypeError, 'the shared entries are frozen')
  registry.add('b', { name: 'two' })
  assert.deepEqual(registry.entries().map((e) => `${e.owner}:${e.value.name}`), ['a:one', 'b:two'])
  registry.add('b', { name: 'three' })
  registry.deleteByOwner('a')
  assert.deepEqual(registry.entries().map((e) => `${e.owner}:${e.value.name}`), ['b:two', 'b:three'])
})
