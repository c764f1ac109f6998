// Form bodies are bounded in field count (counted before decoding) and field length; a provider's
// ordinary webhook with a few dozen fields, empty fields and percent-escapes passes.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HttpError, parseFormBounded } from '../../sdk/index.ts'

const refused = (error: unknown) => HttpError.isInstance(error) && error.status === 400 && error.code === 'form_too_large'

test('too many fields or too long a field is a 400', () => {
  assert.throws(() => parseFormBounded('a=1&'.repeat(201)), refused)
  assert.throws(() => parseFormBounded('a=1&b=2&c=3', { maxFields: 2 }), refused)
  assert.throws(() => parseFormBounded(`Body=${'%41'.repeat(17_000)}`), refused)
  assert.throws(() => parseFormBounded(`${'n'.repeat(17_000)}=1`), refused)
})

test('an ordinary webhook form passes; empty fields do not count', () => {
  const fields = Array.from({ length: 40 }, (_, i) => `Field${i}=v%20${i}`)
  const params = parseFormBounded(`${fields.join('&&')}&Body=hello+world%21&`)
  assert.equal(params.get('Body'), 'hello world!')
  assert.equal(params.get('Field3'), 'v 3')
  assert.equal([...parseFormBounded('a=1&&&b=2', { maxFields: 2 })].length, 2)
})
