// isLoopbackHost decides on the parsed address (as the OS parses a bind address), never on the
// spelling: `127.1` and `::ffff:127.0.0.1` are loopback; names that merely contain one are not.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { hostHeaderName, isLoopbackHost } from '../../sdk/index.ts'

test('loopback spellings pass; everything else, including look-alike names, does not', () => {
  for (const host of ['127.0.0.1', '127.1', '127.255.0.9', '0x7f.1', '2130706433', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) assert.equal(isLoopbackHost(host), true, host)
  for (const host of ['0.0.0.0', '::', '', '10.0.0.1', '128.0.0.1', '127.0.0.1.nip.io', 'localhost.evil.example', 'evil.localhost', '127.0.0.1.', '::2', '0127.0.0.1']) assert.equal(isLoopbackHost(host), false, host)
})

test('the host of a Host header: name, name:port, [v6]:port; malformed is undefined', () => {
  assert.equal(hostHeaderName('localhost:8642'), 'localhost')
  assert.equal(hostHeaderName('[::1]:8642'), '::1')
  assert.equal(hostHeaderName('127.1'), '127.1')
  for (const bad of [undefined, '', '::1', 'a:b:c', '[::1', 'host:port']) assert.equal(hostHeaderName(bad), undefined, String(bad))
})
