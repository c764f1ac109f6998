// The openai package is imported on first use (streamed answers, the model list). A failed import
// must not stick to the client: the next call imports it again instead of failing for ever.
// Node 20 has no module mocking, so a child process has the package refused once by its resolver.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const child = fileURLToPath(new URL('./fixtures/lazy-sdk-child.ts', import.meta.url))

test('a failed import of the openai package is tried again on the next call', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], { timeout: 60_000, env: { PATH: process.env.PATH ?? '', AGENT_LOG_LEVEL: 'error' } })
  const [first, second] = JSON.parse(stdout.trim().split('\n').at(-1)!)
  assert.match(first.error, /injected: the openai package could not be loaded/)
  assert.equal(second.content, 'streamed (streamed)')
})
