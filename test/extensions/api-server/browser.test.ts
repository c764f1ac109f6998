// A browser frontend: a page served from an allowed origin, in headless Chromium (Debian's
// `chromium`, driven by playwright-core without any browser download), calls the API with fetch
// (bearer key, so a CORS preflight first) and streams an answer; a page from another origin is refused.

import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { startServer } from './harness.ts'

function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']
  return candidates.find((path): path is string => Boolean(path && existsSync(path)))
}

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>frontend</title></head><body>
<pre id="out"></pre>
<script>
  // Streams a chat completion and returns the text, or "refused: <reason>" when fetch is blocked.
  window.ask = async (api, key, question) => {
    let res
    try {
      res = await fetch(api + '/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + key },
        body: JSON.stringify({ model: 'agent', stream: true, messages: [{ role: 'user', content: question }] }),
      })
    } catch (error) {
      return 'refused: ' + error.name
    }
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    let buffer = '', text = '', chunks = 0, done = false, usage = null
    for (;;) {
      const { value, done: end } = await reader.read()
      if (end) break
      buffer += decoder.decode(value, { stream: true })
      let cut
      while ((cut = buffer.indexOf('\\n\\n')) >= 0) {
        const event = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        const data = event.split('\\n').find((l) => l.startsWith('data: '))
        if (!data) continue
        if (data === 'data: [DONE]') { done = true; continue }
        const chunk = JSON.parse(data.slice(6))
        const delta = chunk.choices[0] && chunk.choices[0].delta.content
        if (delta) { text += delta; chunks++; document.getElementById('out').textContent = text }
        if (chunk.usage) usage = chunk.usage
      }
    }
    return { status: res.status, text, chunks, done, usage }
  }
</script></body></html>`

async function pageServer(t: import('node:test').TestContext): Promise<string> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

test('a page from an allowed origin streams an answer with fetch; a page from another origin is refused', async (t) => {
  const executablePath = findChromium()
  if (!executablePath) return t.skip('chromium not found (apt-get install -y chromium, or set CHROMIUM_PATH); CI installs it')
  const allowed = await pageServer(t)
  const other = await pageServer(t)
  const key = 'browser-test-key-0123456789'
  const server = await startServer(t, { env: { API_SERVER_CORS_ORIGINS: allowed, API_SERVER_KEY: key } })
  server.model.enqueue({ text: 'Streaming straight into the browser.', chunkSize: 6 })

  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], timeout: 30_000 })
  t.after(() => browser.close())

  const page = await browser.newPage()
  await page.goto(allowed)
  const answer: any = await page.evaluate(([api, k]) => (globalThis as any).ask(api, k, 'Hello from the browser'), [server.url, key])
  assert.equal(answer.status, 200)
  assert.equal(answer.text, 'Streaming straight into the browser.')
  assert.ok(answer.chunks > 1, 'the answer arrived in several chunks')
  assert.equal(answer.done, true)
  assert.ok(answer.usage?.total_tokens > 0)
  assert.equal(await page.textContent('#out'), 'Streaming straight into the browser.')

  const before = server.model.requests.length
  const foreign = await browser.newPage()
  await foreign.goto(other)
  const refused = await foreign.evaluate(([api, k]) => (globalThis as any).ask(api, k, 'Let me in'), [server.url, key])
  assert.equal(refused, 'refused: TypeError')
  assert.equal(server.model.requests.length, before, 'the refused origin never reached the agent')
  // What the browser was told: the preflight from that origin gets 403.
  const preflight = await fetch(`${server.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: other, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } })
  assert.equal(preflight.status, 403)
})
