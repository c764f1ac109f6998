// Every example in examples/ loads through the same door a third-party extension uses.

import assert from 'node:assert/strict'
import { cpSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { createTestKernel } from '../../sdk/testing/index.ts'
import { tempDir } from '../helpers/temp.ts'

const examples = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..', 'examples')

test('word-count-tool registers a working tool', async (t) => {
  const home = tempDir(t)
  cpSync(join(examples, 'word-count-tool'), join(home, 'extensions', 'word-count-tool'), { recursive: true })
  writeFileSync(join(home, 'notes.txt'), 'one two\nthree\n')
  const { kernel, close } = await createTestKernel({ home })
  t.after(close)
  const tool = kernel.registries.tools.get('word_count')
  assert.ok(tool, JSON.stringify(kernel.extensions()))
  const result = await tool.execute({ input: { path: 'notes.txt' }, callId: 'c1', signal: new AbortController().signal, session: { id: 's', cwd: home } })
  assert.deepEqual(result, { lines: 2, words: 3, characters: 14 })
})

test('hello-endpoint serves its route on the api listener with its validated config', async (t) => {
  const home = tempDir(t)
  cpSync(join(examples, 'hello-endpoint'), join(home, 'extensions', 'hello-endpoint'), { recursive: true })
  const { kernel, close } = await createTestKernel({ home, builtins: ['http'], config: { hello: { greeting: 'Ahoy' } }, env: { API_SERVER_PORT: '0', API_SERVER_KEY: 'k-123456' } })
  t.after(close)
  await kernel.start('gateway')
  const url = kernel.services.require<{ address(n: string): { url: string } }>('http').address('api').url
  const denied = await fetch(`${url}/hello/ada`)
  assert.equal(denied.status, 401)
  const ok = await fetch(`${url}/hello/ada`, { headers: { authorization: 'Bearer k-123456' } })
  assert.deepEqual(await ok.json(), { message: 'Ahoy, ada!' })
})

test('hello-endpoint refuses an invalid greeting with a clear config error', async (t) => {
  const home = tempDir(t)
  cpSync(join(examples, 'hello-endpoint'), join(home, 'extensions', 'hello-endpoint'), { recursive: true })
  const { kernel, close } = await createTestKernel({ home, builtins: ['http'], config: { hello: { greeting: '' } } })
  t.after(close)
  const info = kernel.extensions().find((e) => e.name === 'hello-endpoint')!
  assert.equal(info.state, 'failed')
  assert.match(info.reason!, /config\.yaml: hello\.greeting: /)
})
