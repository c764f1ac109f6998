// A frontend in headless Chromium (Debian's `chromium`, driven by playwright-core without any
// browser download): a page served from a loopback origin, holding a token for window "main", calls
// the IPC endpoint of a running agent with fetch (a CORS preflight first). An allowed command runs,
// a denied one is refused with the reason; the same page from an origin not in remote.urls is refused.

import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { startAgent } from './harness.ts'

function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']
  return candidates.find((path): path is string => Boolean(path && existsSync(path)))
}

// The page's own IPC helper: the token is the only thing it holds; labels and origin are the agent's to decide.
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>frontend</title></head><body>
<script>
  window.invoke = async (agent, token, command, args) => {
    try {
      const res = await fetch(agent + '/ipc/' + encodeURIComponent(command), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token },
        body: JSON.stringify(args || {}),
      })
      return { status: res.status, body: await res.json() }
    } catch (error) {
      return { status: 0, body: String(error) }
    }
  }
</script></body></html>`

async function pageServer(t: TestContext): Promise<number> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return (server.address() as AddressInfo).port
}

test('a page holding a token for window "main" invokes an allowed command, is refused a denied one, and a remote origin is refused', async (t) => {
  const executablePath = findChromium()
  if (!executablePath) return t.skip('chromium not found (apt-get update && apt-get install -y chromium, or set CHROMIUM_PATH); CI installs it')
  const port = await pageServer(t)
  const localOrigin = `http://127.0.0.1:${port}`
  // The same page reached as http://localhost:<port> is another origin: remote content.
  const remoteOrigin = `http://localhost:${port}`
  const agent = await startAgent(
    t,
    {
      'main.json': { identifier: 'main', windows: ['main'], permissions: ['allow-greet', 'opener:default'] },
      'lock.json': { identifier: 'lock', windows: ['main'], permissions: ['deny-wipe'] },
      'site.json': { identifier: 'site', local: false, remote: { urls: ['https://*.example.com'] }, windows: ['main'], permissions: ['allow-read-note'] },
    },
    { config: { local_origins: [localOrigin] } },
  )
  const token = await agent.token('main')

  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], timeout: 30_000 })
  t.after(() => browser.close())
  const call = (page: import('playwright-core').Page, command: string, args: unknown = {}) =>
    page.evaluate(([a, tk, c, ar]) => (globalThis as any).invoke(a, tk, c, ar), [agent.url, token, command, args] as const)

  const page = await browser.newPage()
  await page.goto(localOrigin)
  const greeted: any = await call(page, 'greet', { name: 'browser' })
  assert.deepEqual(greeted, { status: 200, body: 'hello browser from main' })
  assert.deepEqual(agent.calls.at(-1)!.origin, { kind: 'local' })

  const wiped: any = await call(page, 'wipe')
  assert.equal(wiped.status, 403)
  assert.match(wiped.body.error.message, /wipe explicitly denied by capability "lock"/)
  const saved: any = await call(page, 'save_note')
  assert.equal(saved.status, 403)
  assert.match(saved.body.error.message, /save_note not allowed: no active capability grants it/)

  const opened: any = await call(page, 'plugin:opener|open_url', { url: 'https://example.com/from-the-page' })
  assert.equal(opened.status, 200)
  assert.deepEqual(agent.opened(), ['https://example.com/from-the-page', '--'])
  const outside: any = await call(page, 'plugin:opener|open_url', { url: 'javascript:alert(1)' })
  assert.equal(outside.status, 403)

  const before = agent.calls.length
  const foreign = await browser.newPage()
  await foreign.goto(`${remoteOrigin}/elsewhere`)
  const refused: any = await call(foreign, 'greet', { name: 'intruder' })
  assert.equal(refused.status, 403)
  assert.match(refused.body.error.message, new RegExp(`greet not allowed on origin remote: ${remoteOrigin.replace(/[.:/]/g, '\\$&')}/`))
  const notListed: any = await call(foreign, 'read_note')
  assert.equal(notListed.status, 403, 'remote.urls lists *.example.com only')
  assert.equal(agent.calls.length, before, 'nothing ran for the remote origin')
})
