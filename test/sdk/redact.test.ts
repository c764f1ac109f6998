// Redaction of free text: phone numbers go (8-15 digits, separators allowed), while longer ids
// (chat-platform snowflakes), short numbers and dates stay readable; secrets are masked.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redactE164In, redactPhonesIn, redactSecrets } from '../../sdk/index.ts'

test('phone numbers in free text are redacted; snowflake ids, short numbers and dates are not', () => {
  assert.equal(redactPhonesIn('from +1 555 123 4567 now'), 'from +155****4567 now')
  assert.equal(redactPhonesIn('call 555-123-4567.'), 'call 5551****4567.')
  assert.equal(redactPhonesIn('+447911123456 wrote'), '+447****3456 wrote')
  // A Discord or Matrix-style id of 17-19 digits is not a phone number, and what follows it survives.
  assert.equal(redactPhonesIn('denied a message from discord:930012345678900001 (user)'), 'denied a message from discord:930012345678900001 (user)')
  assert.equal(redactPhonesIn('order 1234567 (ok), count 12'), 'order 1234567 (ok), count 12')
  assert.equal(redactPhonesIn('at 2026-11-21 12:00 the run ended'), 'at 2026-11-21 12:00 the run ended')
  assert.equal(redactE164In('to +15551234567 and 930012345678900001'), 'to +155****4567 and 930012345678900001')
  assert.equal(redactSecrets('key sk-test-abcdef123456 used', ['sk-test-abcdef123456']), 'key *** used')
})

test('digits inside a UUID, a hex id or an alphanumeric token are not phone numbers', () => {
  const uuid = '7c9e6679-1043-5612-f570-0123456789ab'
  assert.equal(redactPhonesIn(`session ${uuid} started`), `session ${uuid} started`)
  assert.equal(redactPhonesIn('run 10435612-7890-4abc-8def-0123456789ab done'), 'run 10435612-7890-4abc-8def-0123456789ab done')
  assert.equal(redactPhonesIn('id deadbeef-5551234567 x'), 'id deadbeef-5551234567 x')
  assert.equal(redactPhonesIn('req_9f8e7d6c-1043-5612 ok'), 'req_9f8e7d6c-1043-5612 ok')
  // A plain word joined to a number does not make it an id: the number is still redacted.
  assert.equal(redactPhonesIn('phone-555-123-4567 now'), 'phone-5551****4567 now')
  assert.equal(redactPhonesIn(`from +1 555 123 4567 about ${'ab12cd34'}`), 'from +155****4567 about ab12cd34')
})

test('redactSecrets masks known values and their encodings with ***, but never too-short or common values', () => {
  const key = 'tok-0123456789abcdef'
  assert.equal(redactSecrets(`a ${key} b ${Buffer.from(key).toString('base64')}`, [key]), 'a *** b ***')
  assert.equal(redactSecrets('mode true, port 8642', ['true', '8642', 'abc']), 'mode true, port 8642')
})
