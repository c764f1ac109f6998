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
