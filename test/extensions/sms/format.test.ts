// SMS unit checks: the provider's documented signature vectors, port toggling, markdown stripping,
// splitting at ≤1600 characters on newlines or spaces.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { twilioSignature, urlVariants, verifyTwilioSignature } from '../../../extensions/sms/signature.ts'
import { MAX_SMS_LENGTH, smsParts, stripMarkdown } from '../../../extensions/sms/format.ts'
import { redactPhone } from '../../../sdk/index.ts'

const URL_ = 'https://mycompany.com/myapp.php?foo=1&bar=2'
const params = (caller: string) => ({ CallSid: 'CA1234567890ABCDE', Caller: caller, Digits: '1234', From: caller, To: '+18005551212' })

test('signature matches the provider documentation vectors', () => {
  assert.equal(twilioSignature('12345', URL_, params('+14158675310')), 'GvWf1cFY/Q7PnoempGyD5oXAezc=')
  assert.equal(twilioSignature('12345', URL_, params('+14158675309')), 'RSOYDt4T1cUTdK1PDd93/VVr8B8=')
  assert.ok(verifyTwilioSignature('12345', URL_, new URLSearchParams(params('+14158675310')), 'GvWf1cFY/Q7PnoempGyD5oXAezc='))
  assert.ok(!verifyTwilioSignature('12345', URL_, new URLSearchParams(params('+14158675311')), 'GvWf1cFY/Q7PnoempGyD5oXAezc='))
  assert.ok(!verifyTwilioSignature('12345', URL_, new URLSearchParams(params('+14158675310')), undefined))
  assert.deepEqual(urlVariants('https://a.example/sms'), ['https://a.example/sms', 'https://a.example:443/sms'])
  assert.deepEqual(urlVariants('https://a.example:443/sms'), ['https://a.example:443/sms', 'https://a.example/sms'])
  assert.deepEqual(urlVariants('http://a.example:8080/sms'), ['http://a.example:8080/sms'])
})

test('markdown is stripped, snake_case survives', () => {
  assert.equal(stripMarkdown('# Title\n\n**bold** and *it* and __b__ and _i_ with snake_case_name'), 'Title\n\nbold and it and b and i with snake_case_name')
  assert.equal(stripMarkdown('see [docs](https://x.test) and `code`\n\n\n\n```sh\nls -l\n```'), 'see docs and code\n\nls -l')
})

test('long replies are split into parts of at most 1600 characters at newlines or spaces', () => {
  const words = Array.from({ length: 900 }, (_, i) => `word${i}`).join(' ')
  const parts = smsParts(`${words}\n${words}`)
  assert.ok(parts.length >= 4)
  for (const part of parts) {
    assert.ok(part.length <= MAX_SMS_LENGTH)
    assert.doesNotMatch(part, /^\s|\s$/)
  }
  assert.equal(parts.join(' ').split(/\s+/).length, 1800, 'no word lost or cut')
  assert.deepEqual(smsParts('x'.repeat(3300)).map((p) => p.length), [1600, 1600, 100])
  assert.equal(redactPhone('+15551234567'), '+155****4567')
})
