// Webhook templates bound every inserted value: a huge string field (an issue body anyone can write)
// is cut to the field limit with the `…` mark, once per mention; a short one goes in as sent.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { renderTemplate } from '../../../extensions/webhook/template.ts'

const LIMIT = 2_000

test('a huge string field is cut to the limit and marked, every time the template names it', () => {
  const huge = 'X'.repeat(1_000_000)
  const out = renderTemplate('Push to {repository.full_name} ({repository.full_name})', { repository: { full_name: huge } })
  assert.equal(out, `Push to ${'X'.repeat(LIMIT)}… (${'X'.repeat(LIMIT)}…)`)
  // The same bound as an object field.
  const object = renderTemplate('{repository}', { repository: { full_name: huge } })
  assert.equal(object.length, LIMIT + 1)
  assert.ok(object.endsWith('…'))
})

test('look-alike: short strings, numbers and a string exactly at the limit go in as sent', () => {
  const exact = 'y'.repeat(LIMIT)
  assert.equal(renderTemplate('{a} {n} {b} {e}', { a: 'main', n: 42, b: true, e: exact }), `main 42 true ${exact}`)
})

test('a cut never splits a surrogate pair', () => {
  const text = 'a'.repeat(LIMIT - 1) + '😀'.repeat(10)
  const out = renderTemplate('{t}', { t: text })
  assert.equal(out, `${'a'.repeat(LIMIT - 1)}…`)
  assert.doesNotMatch(out, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone high surrogate')
})
