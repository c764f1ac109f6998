// The bounded JSON intake refuses too-deep and too-large documents with a 400 before parsing (no
// stack overflow on a million brackets), and passes look-alikes: brackets and commas inside
// strings, escaped quotes, a document exactly at the limits, a leading BOM.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkJsonBounds, HttpError, JsonIntakeError, parseJsonBounded, parseJsonObject } from '../../sdk/index.ts'

function refuses(fn: () => unknown, code: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(JsonIntakeError.isInstance(error), `not a JsonIntakeError: ${String(error)}`)
    assert.ok(HttpError.isInstance(error))
    assert.equal((error as HttpError).status, 400)
    assert.equal((error as HttpError).code, code)
    return true
  })
}

test('nesting beyond maxDepth is refused before parsing, even a million levels', () => {
  refuses(() => parseJsonBounded('['.repeat(1_000_000)), 'json_too_deep')
  refuses(() => parseJsonBounded('{"a":'.repeat(65) + '1' + '}'.repeat(65)), 'json_too_deep')
  refuses(() => parseJsonBounded('[[[[1]]]]', { maxDepth: 3 }), 'json_too_deep')
  assert.deepEqual(parseJsonBounded('[[[1]]]', { maxDepth: 3 }), [[[1]]])
  const deep64 = '['.repeat(64) + ']'.repeat(64)
  assert.ok(Array.isArray(parseJsonBounded(deep64)))
})

test('members and elements beyond maxKeys are refused; exactly maxKeys passes', () => {
  const many = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`
  assert.equal((parseJsonBounded(many(10_000)) as unknown[]).length, 10_000)
  refuses(() => parseJsonBounded(many(10_001)), 'json_too_large')
  const obj = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":{}`).join(',')}}`
  assert.equal(Object.keys(parseJsonObject(obj(5), { maxKeys: 5 })).length, 5)
  refuses(() => parseJsonBounded(obj(6), { maxKeys: 5 }), 'json_too_large')
  // Empty containers count nothing; the counts are totals across the document.
  assert.deepEqual(parseJsonBounded('[[],{},[[]]]', { maxKeys: 4 }), [[], {}, [[]]])
  refuses(() => parseJsonBounded('[[1,2],[3,4]]', { maxKeys: 5 }), 'json_too_large')
})

test('brackets, commas and escaped quotes inside strings are not structure', () => {
  const text = JSON.stringify({ a: '[[[[[,,,,,{{{{', b: 'say \\"[[[\\"', c: '\\\\' })
  assert.deepEqual(parseJsonBounded(text, { maxDepth: 1, maxKeys: 3 }), JSON.parse(text))
})

test('malformed, truncated and non-object bodies are a 400, a BOM is ignored', () => {
  refuses(() => parseJsonBounded('{"a":'), 'invalid_json')
  refuses(() => parseJsonBounded(''), 'invalid_json')
  refuses(() => parseJsonBounded(']]]]'), 'invalid_json')
  refuses(() => parseJsonObject('[1]'), 'invalid_body')
  refuses(() => parseJsonObject('null'), 'invalid_body')
  assert.deepEqual(parseJsonObject('\ufeff{"a":1}'), { a: 1 })
  assert.equal(checkJsonBounds('"unterminated [[[['), undefined)
})

test('__proto__ keys are dropped, plain or escaped, at any depth; other keys stay', () => {
  const parsed = parseJsonObject<Record<string, any>>('{"__proto__":{"polluted":1},"a":{"\\u005f_proto__":{"x":1},"constructor":2},"b":"__proto__"}')
  assert.equal(Object.prototype.hasOwnProperty.call(parsed, '__proto__'), false)
  assert.equal(Object.prototype.hasOwnProperty.call(parsed.a, '__proto__'), false)
  assert.equal(parsed.a.constructor, 2)
  assert.equal(parsed.b, '__proto__')
  const target = Object.assign({}, parsed)
  assert.equal((target as Record<string, unknown>).polluted, undefined)
  assert.equal(Object.getPrototypeOf(target), Object.prototype)
})
