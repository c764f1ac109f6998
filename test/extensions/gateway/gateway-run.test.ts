// The end-to-end: a user extension registering an endpoint on the `api` listener is served by
// a running `agent gateway run`; editing it changes the answer within a second; a broken version
// keeps the previous one serving and the error is reported; SIGINT shuts down cleanly.

import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'

const source = (answer: string) => `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'hello', setup(api) {
  api.endpoints.register({ listener: 'api', method: 'GET', path: '/hello', auth: 'none', handler: (ctx) => { ctx.body = { answer: '${answer}' } } })
} })
`

async function answerWithin(url: string, expected: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    const body = (await (await fetch(url)).json()) as { answer?: string }
    if (body.answer === expected) return true
    await sleep(25)
  }
  return false
}

test('gateway run serves a user extension and hot-reloads it', async (t) => {
  const home = tempDir(t)
  const file = join(home, 'extensions', 'hello', 'index.ts')
  mkdirSync(join(home, 'extensions', 'hello'), { recursive: true })
  writeFileSync(file, source('one'))
  const agent = startAgent(['gateway', 'run'], { home, env: { API_SERVER_PORT: '0' } })
  t.after(() => agent.stop('SIGKILL'))
  const [, url] = await agent.waitFor(/listening: api on (http:\/\/\S+)/, 20_000)
  assert.deepEqual(await (await fetch(`${url}/hello`)).json(), { answer: 'one' })

  writeFileSync(file, source('two'))
  assert.ok(await answerWithin(`${url}/hello`, 'two', 1_000), 'the edited version answers within a second')

  writeFileSync(file, source('three').replace('setup(api) {', 'setup(api) {{'))
  await agent.waitFor(/reload of "hello" failed, keeping the previous version: .*index\.ts:\d+:\d+/, 5_000)
  assert.deepEqual(await (await fetch(`${url}/hello`)).json(), { answer: 'two' })

  assert.equal(await agent.stop('SIGINT'), 0)
  assert.match(agent.stderr(), /gateway stopping/)
})
