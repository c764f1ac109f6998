// The browser toolset against a real headless Chromium (Debian package `chromium`) started with a
// DevTools port, driving pages served on loopback.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import type { SlashContext, ToolDefinition, ToolSession } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p))
const skip = CHROMIUM ? false : 'Chromium is not installed (apt-get install -y chromium)'

async function startChromium(t: import('node:test').TestContext): Promise<{ endpoint: string; child: ChildProcess }> {
  const profile = mkdtempSync(join(tmpdir(), 'agent-chromium-'))
  const child = spawn(CHROMIUM!, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    // Its singleton socket folder (org.chromium.Chromium.*) goes to TMPDIR and outlives a SIGKILL: inside the profile, it is removed with it.
    env: { ...process.env, TMPDIR: profile },
  })
  t.after(async () => {
    // Chromium's helper processes share its process group: end them all, then remove the profile.
    const exited = new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)))
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // already gone
    }
    await exited
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  })
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = ''
    const timer = setTimeout(() => reject(new Error(`chromium did not start: ${text}`)), 30_000)
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      text += d
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text)
      if (match) {
        clearTimeout(timer)
        resolve(`http://${new URL(match[1]!).host}`)
      }
    })
  })
  return { endpoint, child }
}

async function startSite(t: import('node:test').TestContext) {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    res.setHeader('content-type', 'text/html')
    if (url.pathname === '/') return res.end(`<html><head><title>Home</title></head><body><h1>Welcome</h1><p>Search below.</p>
      <form action="/result"><input name="q" placeholder="query"><button type="submit">Go</button></form>
      <a href="/about">About us</a></body></html>`)
    if (url.pathname === '/result') return res.end(`<html><head><title>Result</title></head><body><h1>Results for ${url.searchParams.get('q')}</h1></body></html>`)
    if (url.pathname === '/about') return res.end('<html><head><title>About</title></head><body><h2>About page</h2><button onclick="document.body.insertAdjacentHTML(\'beforeend\', \'<p>clicked!</p>\')">Press</button></body></html>')
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/` })
      return res.end()
    }
    if (url.pathname === '/redirect-mapped') {
      // The same blocked address spelled as IPv4-mapped IPv6.
      res.writeHead(302, { location: `http://[::ffff:127.0.0.2]:${(server.address() as AddressInfo).port}/` })
      return res.end()
    }
    res.statusCode = 404
    res.end('not found')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()) }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

test('attach with /browser connect, then navigate, snapshot, type, click; /browser status and disconnect', { skip, timeout: 90_000 }, async (t) => {
  const { endpoint, child } = await startChromium(t)
  const site = await startSite(t)
  const k = await createTestKernel({ builtins: ['tools-browser'], config: { security: { website_blocklist: { domains: ['blocked.test', '127.0.0.2'] } } } })
  t.after(() => k.close())
  const slash = async (args: string) => {
    const replies: string[] = []
    const ctx: SlashContext = { args, invokedAs: 'browser', surface: 'cli', reply: (text) => void replies.push(text) }
    await (k.kernel.registries.commands.get('browser') as { slash: (c: SlashContext) => Promise<void> }).slash(ctx)
    return replies.join('\n')
  }
  const session: ToolSession = { id: 's-b', cwd: tmpdir() }
  const call = async (name: string, input: unknown) => (await (k.kernel.registries.tools.get(name) as ToolDefinition).execute({ input, callId: 'c', signal: new AbortController().signal, session })) as any

  assert.match(await slash('status'), /No browser attached/)
  assert.match(String((k.kernel.registries.tools.get('browser_navigate') as ToolDefinition).available!(k.kernel.settings)), /no browser is attached/)
  await assert.rejects(call('browser_snapshot', {}), /run \/browser connect first/)
  assert.match(await slash('connect http://127.0.0.1:1'), /Could not attach/)

  assert.match(await slash(`connect ${endpoint}`), /Browser attached/)
  assert.equal((k.kernel.registries.tools.get('browser_navigate') as ToolDefinition).available!(k.kernel.settings), true)
  const home = await call('browser_navigate', { url: `${site}/` })
  assert.equal(home.title, 'Home')
  assert.match(home.content, /# Welcome/)
  const input = /\[ref=(\d+)\] input\[text\] "query"/.exec(home.content)
  assert.ok(input, home.content)
  const typed = await call('browser_type', { ref: input[1], text: 'kittens', submit: true })
  assert.equal(typed.title, 'Result')
  assert.match(typed.content, /# Results for kittens/)

  await call('browser_navigate', { url: `${site}/` })
  const snap = await call('browser_snapshot', {})
  const link = /\[ref=(\d+)\] link "About us"/.exec(snap.content)!
  const about = await call('browser_click', { ref: link[1] })
  assert.equal(about.url, `${site}/about`)
  const button = /\[ref=(\d+)\] button "Press"/.exec(about.content)!
  assert.match((await call('browser_click', { ref: button[1] })).content, /clicked!/)
  await assert.rejects(call('browser_click', { ref: 'x"]' }), /invalid ref/)

  // The website blocklist: refused before navigating, and a redirect into a blocked site is stopped.
  await assert.rejects(call('browser_navigate', { url: 'https://www.blocked.test/page' }), /Blocked by website policy: www\.blocked\.test/)
  await assert.rejects(call('browser_navigate', { url: `${site}/redirect` }), /Blocked/)
  await assert.rejects(call('browser_navigate', { url: `${site}/redirect-mapped` }), /Blocked by website policy: 127\.0\.0\.2/)
  await assert.rejects(call('browser_navigate', { url: 'http://[::ffff:7f00:2]/' }), /Blocked by website policy: 127\.0\.0\.2/)
  assert.ok(!(await call('browser_snapshot', {})).url.includes('127.0.0.2'))

  assert.match(await slash('status'), new RegExp(`Attached to ${endpoint.replace(/[.]/g, '\\.')}: \\d+ page`))
  assert.match(await slash('disconnect'), /detached/)
  assert.match(await slash('status'), /No browser attached/)
  assert.equal(child.exitCode, null, 'the browser keeps running after disconnect')
  assert.match(await slash('frobnicate'), /Usage/)
})
