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
