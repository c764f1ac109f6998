// What a typed value becomes for every kind a schema can ask for, and for keys no schema describes.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allowedKinds, coerceValue } from '../../../extensions/config-cli/coerce.ts'

const STRING = { type: 'string' }

test('a string schema keeps the text as typed: templates, mapping look-alikes, numbers, # and quotes', () => {
  for (const raw of ['A push happened: {head_commit.message}', '{head_commit.message}', 'Fix issue #12', '5', 'true', 'null', '[a, b]', '']) {
    assert.equal(coerceValue(raw, STRING), raw, raw)
  }
  assert.equal(coerceValue('"quoted text"', STRING), 'quoted text', 'YAML quotes are how a user asks for the inner text')
})

test('non-string schemas get YAML-typed values, and a mismatch stays visible to the schema check', () => {
  assert.equal(coerceValue('12', { type: 'integer', minimum: 1 }), 12)
  assert.equal(coerceValue('-3', { type: 'integer', minimum: 1 }), -3, 'the range check refuses it afterwards')
  assert.equal(coerceValue('0.5', { type: 'number' }), 0.5)
  assert.equal(coerceValue('false', { type: 'boolean' }), false)
  assert.equal(coerceValue('maybe', { type: 'boolean' }), 'maybe')
  assert.deepEqual(coerceValue('[push, ping]', { type: 'array', items: STRING }), ['push', 'ping'])
  assert.deepEqual(coerceValue('{a: 1}', { type: 'object' }), { a: 1 })
  assert.equal(coerceValue('light', { enum: ['light', 'dark'] }), 'light')
  assert.equal(coerceValue('null', { type: ['string', 'null'] }), null)
  assert.equal(coerceValue('text', { type: ['string', 'null'] }), 'text')
  assert.equal(coerceValue('7', { anyOf: [STRING, { type: 'object' }] }), '7', 'model: a name or a mapping; 7 is a name')
  assert.equal(coerceValue('7', { anyOf: [{ type: 'integer' }, STRING] }), 7)
})

test('keys no schema describes: YAML scalars and [..]/{..} collections typed, text that looks like a mapping kept', () => {
  assert.equal(coerceValue('12', undefined), 12)
  assert.equal(coerceValue('true', undefined), true)
  assert.equal(coerceValue('hello world', undefined), 'hello world')
  assert.equal(coerceValue('Fix issue #12', undefined), 'Fix issue #12', 'YAML would drop " #12" as a comment')
  assert.deepEqual(coerceValue('[a, b]', undefined), ['a', 'b'])
  assert.deepEqual(coerceValue('{a: 1, b: x}', undefined), { a: 1, b: 'x' })
  assert.equal(coerceValue('A push happened: {head_commit.message}', undefined), 'A push happened: {head_commit.message}')
  assert.equal(coerceValue('{head_commit.message}', undefined), '{head_commit.message}')
  assert.equal(coerceValue('a: [unclosed', undefined), 'a: [unclosed', 'not YAML: the text as typed')
})

test('allowedKinds reads type, enum, const and anyOf', () => {
  assert.deepEqual([...allowedKinds({ type: ['integer', 'null'] })!], ['number', 'null'])
  assert.deepEqual([...allowedKinds({ enum: ['a', 1, null] })!], ['string', 'number', 'null'])
  assert.deepEqual([...allowedKinds({ anyOf: [STRING, { properties: {} }] })!], ['string', 'object'])
  assert.equal(allowedKinds({ description: 'anything' }), undefined)
})
