// openai-node and the AI SDK inside headless Chromium (Debian's `chromium`, driven by playwright-core),
// bundled for the page with esbuild at test time, against a real `agent gateway run` whose
// API_SERVER_CORS_ORIGINS lists the page's loopback origin: chat and responses, plain and streamed,
// each a CORS preflight carrying the clients' own headers (openai-node fails on every call when
// its x-stainless-* headers are not allowed). A page from an origin
// not listed is refused before anything runs.

import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { API_KEY, startApiGateway } from './api-gateway.ts'

const REPO = join(import.meta.dirname, '..', '..')

function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']
  return candidates.find((path): path is string => Boolean(path && existsSync(path)))
}

// Runs in the page: every client call, each answer's text (or the error's class and message).
// Plain JavaScript in the bundle (a function passed to page.evaluate would carry tsx's helpers).
const PAGE_SCRIPT = `import OpenAI from 'openai'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, streamText } from 'ai'

window.callEverything = async (api, key) => {
  const client = new OpenAI({ baseURL: api + '/v1', apiKey: key, dangerouslyAllowBrowser: true, maxRetries: 0 })
  const provider = createOpenAI({ baseURL: api + '/v1', apiKey: key })
  const collect = async (iterable, pick) => {
    let text = ''
    for await (const item of iterable) text += pick(item) ?? ''
    return text
  }
  // streamText reports a failed request to onError and ends the text stream empty: rethrow it.
  const streamAi = async (model, prompt) => {
    let failure
    const text = await collect(streamText({ model, prompt, maxRetries: 0, onError: ({ error }) => (failure = error) }).textStream, (d) => d)
    if (failure) throw failure
    return text
  }
  const calls = {
    'openai chat': async () => (await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'openai chat' }] })).choices[0].message.content,
    'openai chat stream': async () =>
      collect(await client.chat.completions.create({ model: 'agent', stream: true, messages: [{ role: 'user', content: 'openai chat stream' }] }), (c) => c.choices[0]?.delta.content),
    'openai responses': async () => (await client.responses.create({ model: 'agent', input: 'openai responses' })).output_text,
    'openai responses stream': async () =>
      collect(await client.responses.create({ model: 'agent', input: 'openai responses stream', stream: true }), (e) => (e.type === 'response.output_text.delta' ? e.delta : '')),
    'ai-sdk responses': async () => (await generateText({ model: provider.responses('agent'), prompt: 'ai-sdk responses', maxRetries: 0 })).text,
    'ai-sdk responses stream': async () => streamAi(provider.responses('agent'), 'ai-sdk responses stream'),
    'ai-sdk chat': async () => (await generateText({ model: provider.chat('agent'), prompt: 'ai-sdk chat', maxRetries: 0 })).text,
    'ai-sdk chat stream': async () => streamAi(provider.chat('agent'), 'ai-sdk chat stream'),
  }
  const out = {}
  for (const [name, call] of Object.entries(calls)) {
    try {
      out[name] = await call()
    } catch (error) {
      out[name] = 'error: ' + (error && error.constructor && error.constructor.name) + ': ' + (error && error.message)
    }
  }
  return out
}
`

/** The two client libraries and the page script as one browser script, built in memory (nothing written to the tree). */
async function bundleClients(): Promise<string> {
  const { build } = await import('esbuild')
  const result = await build({
    stdin: {
      contents: PAGE_SCRIPT,
      resolveDir: REPO,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

async function pageServer(t: TestContext, bundle: string): Promise<string> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/clients.js') return void res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundle)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html><head><meta charset="utf-8"><script src="/clients.js"></script></head><body></body></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

test('openai-node and the AI SDK in Chromium: an allowed origin gets every answer; another origin is refused', { timeout: 180_000 }, async (t) => {
  const executablePath = findChromium()
  if (!executablePath) return t.skip('chromium not found (apt-get install -y chromium, or set CHROMIUM_PATH); CI installs it')
  const bundle = await bundleClients()
  const allowed = await pageServer(t, bundle)
  const other = await pageServer(t, bundle)
  const gateway = await startApiGateway(t, { API_SERVER_CORS_ORIGINS: allowed })

  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], timeout: 30_000 })
  t.after(() => browser.close())

  const page = await browser.newPage()
  await page.goto(allowed)
  const answers: Record<string, string> = await page.evaluate(`window.callEverything(${JSON.stringify(gateway.url)}, ${JSON.stringify(API_KEY)})`)
  assert.deepEqual(answers, {
    'openai chat': 'echo: openai chat',
    'openai chat stream': 'echo: openai chat stream',
    'openai responses': 'echo: openai responses',
    'openai responses stream': 'echo: openai responses stream',
    'ai-sdk responses': 'echo: ai-sdk responses',
    'ai-sdk responses stream': 'echo: ai-sdk responses stream',
    'ai-sdk chat': 'echo: ai-sdk chat',
    'ai-sdk chat stream': 'echo: ai-sdk chat stream',
  })

  const before = gateway.model.requests.length
  const foreign = await browser.newPage()
  await foreign.goto(other)
  const refused: Record<string, string> = await foreign.evaluate(`window.callEverything(${JSON.stringify(gateway.url)}, ${JSON.stringify(API_KEY)})`)
  for (const [name, answer] of Object.entries(refused)) assert.match(answer, /^error: /, `${name} from a foreign origin: ${answer}`)
  assert.equal(gateway.model.requests.length, before, 'the refused origin never reached the agent')
})
