import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import type { ToolDefinition, ToolSession, WebService } from 'agent/sdk'
import { createTestKernel, type TestKernelOptions } from 'agent/sdk/testing'
import { startFakeWebApis } from './fake-backends.ts'

const KEYS = { firecrawl: 'fc-test-key-123456', parallel: 'par-test-key-654321' }
const session: ToolSession = { id: 's-web', cwd: '/tmp' }

async function setup(t: import('node:test').TestContext, options: TestKernelOptions & { firecrawl?: boolean; parallel?: boolean } = {}) {
  const fake = await startFakeWebApis(KEYS)
  t.after(() => fake.close())
  const env: Record<string, string> = {}
  if (options.firecrawl !== false) Object.assign(env, { FIRECRAWL_API_KEY: KEYS.firecrawl, FIRECRAWL_API_URL: fake.url })
  if (options.parallel) Object.assign(env, { PARALLEL_API_KEY: KEYS.parallel, PARALLEL_BASE_URL: fake.url })
  const k = await createTestKernel({ builtins: ['tools-web'], ...options, env: { ...env, ...options.env }, config: { web: { crawl_poll_interval: 0.05 }, ...options.config } })
  t.after(() => k.close())
  const tool = (name: string) => k.kernel.registries.tools.get(name) as ToolDefinition
  const call = async (name: string, input: unknown) => (await tool(name).execute({ input, callId: 'c1', signal: new AbortController().signal, session })) as any
  return { fake, k, tool, call }
}

test('firecrawl (chosen by its key): search, extract and crawl over its REST API', async (t) => {
  const { fake, call, k } = await setup(t)
  const search = await call('web_search', { query: 'node streams', limit: 5 })
  assert.equal(search.backend, 'firecrawl')
  assert.deepEqual(search.results[0], { url: 'https://docs.example.org/a', title: 'A doc', snippet: 'about node streams' })
  const searchRequest = fake.requests.find((r) => r.path === '/v2/search')!
  assert.equal(searchRequest.headers.authorization, `Bearer ${KEYS.firecrawl}`)
  assert.deepEqual(searchRequest.body, { query: 'node streams', limit: 5 })

  const extract = await call('web_extract', { urls: ['https://docs.example.org/a', 'https://docs.example.org/missing'] })
  assert.equal(extract.pages[0].title, 'Page title')
  assert.match(extract.pages[0].content, /content of https:\/\/docs\.example\.org\/a/)
  assert.match(extract.pages[1].error, /HTTP 404: page not found/)
  assert.deepEqual(fake.requests.find((r) => r.path === '/v2/scrape')!.body, { url: 'https://docs.example.org/a', formats: ['markdown'], onlyMainContent: true })

  const crawl = await call('web_crawl', { url: 'https://site.example.com', limit: 3 })
  assert.deepEqual(crawl.pages.slice(0, 2).map((p: any) => p.title), ['Home', 'About'])
  assert.equal(fake.requests.filter((r) => r.path === '/v2/crawl/crawl-123').length, 2)
  assert.equal(fake.requests.find((r) => r.path === '/v2/crawl')!.body.limit, 3)

  const web = k.kernel.services.get<WebService>('web')!
  assert.equal(web.current(), 'firecrawl')
  assert.deepEqual(web.backends().map((b) => [b.name, b.envKeys[0], b.configured, b.crawl]), [['firecrawl', 'FIRECRAWL_API_KEY', true, true], ['parallel', 'PARALLEL_API_KEY', 'PARALLEL_API_KEY is not set', false]])
  assert.equal((k.kernel.registries.tools.get('web_search') as any).backends.setting, 'web.backend')
})

test('parallel (web.backend): search and extract with x-api-key; crawl on it is a clear tool error', async (t) => {
  const { fake, call } = await setup(t, { parallel: true, config: { web: { backend: 'parallel', crawl_poll_interval: 0.05 } } })
  const search = await call('web_search', { query: 'quantum batteries', limit: 3 })
  assert.equal(search.backend, 'parallel')
  assert.deepEqual(search.results, [{ url: 'https://news.example.net/story', title: 'Story', snippet: 'first excerpt … second excerpt' }])
  const request = fake.requests.find((r) => r.path === '/v1/search')!
  assert.equal(request.headers['x-api-key'], KEYS.parallel)
  assert.deepEqual(request.body, { objective: 'quantum batteries', search_queries: ['quantum batteries'], advanced_settings: { max_results: 3 } })

  const extract = await call('web_extract', { urls: ['https://a.example.net/', 'https://a.example.net/missing'], objective: 'pricing' })
  assert.equal(extract.pages[0].content, 'full content of https://a.example.net/')
  assert.match(extract.pages[1].error, /fetch_error: not found/)
  assert.deepEqual(fake.requests.find((r) => r.path === '/v1/extract')!.body, { urls: ['https://a.example.net/', 'https://a.example.net/missing'], objective: 'pricing', advanced_settings: { full_content: true } })

  const before = fake.requests.length
  await assert.rejects(call('web_crawl', { url: 'https://site.example.com' }), /web_crawl is not available on the parallel backend; it needs firecrawl/)
  assert.equal(fake.requests.length, before, 'nothing was sent')
})

test('security.website_blocklist refuses blocked sites and filters blocked results', async (t) => {
  const { fake, call, k } = await setup(t, { config: { web: { crawl_poll_interval: 0.05 }, security: { website_blocklist: { enabled: true, domains: ['blocked.test', '*.evil-*.org', 'https://www.bad.example/path', '127.0.0.9'], shared_files: ['blocklist.txt'] } } } })
  writeFileSync(join(k.home, 'blocklist.txt'), '# shared list\nshared-block.net\n')
  const before = fake.requests.length
  await assert.rejects(call('web_extract', { urls: ['https://blocked.test/page'] }), /Blocked by website policy: blocked\.test matches "blocked\.test"/)
  await assert.rejects(call('web_extract', { urls: ['https://sub.blocked.test/'] }), /Blocked by website policy/)
  await assert.rejects(call('web_extract', { urls: ['http://cdn.evil-ads.org/x'] }), /matches "\*\.evil-\*\.org"/)
  await assert.rejects(call('web_extract', { urls: ['https://bad.example/other'] }), /Blocked/)
  await assert.rejects(call('web_extract', { urls: ['https://www.shared-block.net/'] }), /shared-block\.net/)
  await assert.rejects(call('web_crawl', { url: 'https://blocked.test' }), /Blocked by website policy/)
  assert.equal(fake.requests.length, before, 'blocked URLs never reach the backend')

  const mixed = await call('web_extract', { urls: ['https://blocked.test/a', 'https://fine.example.com/b'] })
  assert.equal(mixed.pages.length, 2)
  assert.match(mixed.pages[1].error, /Blocked/)
  assert.equal(fake.requests.at(-1)!.body.url, 'https://fine.example.com/b')

  // The backend followed a redirect to a blocked address (spelled as mapped IPv6): the content is dropped.
  const landed = await call('web_extract', { urls: ['https://fine.example.com/redirect-to-blocked'] })
  assert.deepEqual(landed.pages, [{ url: 'https://fine.example.com/redirect-to-blocked', title: '', content: '', error: 'Blocked by website policy: 127.0.0.9 matches "127.0.0.9" (security.website_blocklist)' }])
  const direct = await call('web_extract', { urls: ['https://fine.example.com/plain'] })
  assert.equal(direct.pages[0].content, '# Page\ncontent of https://fine.example.com/plain')

  const search = await call('web_search', { query: 'x' })
  assert.deepEqual(search.results.map((r: any) => r.url), ['https://docs.example.org/a'])
  assert.equal(search.blocked, 1)
  const crawl = await call('web_crawl', { url: 'https://site.example.com' })
  assert.match(crawl.pages[2].error, /Blocked/)
  assert.equal(crawl.pages[2].content, '')
})

test('an invalid blocklist blocks everything (fail closed); no backend is a clear error', async (t) => {
  const bad = await setup(t, { config: { security: { website_blocklist: { enabled: 'yes' } } } })
  await assert.rejects(bad.call('web_extract', { urls: ['https://docs.example.org/'] }), /website_blocklist is invalid/)
  const none = await setup(t, { firecrawl: false })
  assert.match(String(none.tool('web_search').available!(none.k.kernel.settings)), /no web backend is configured: set FIRECRAWL_API_KEY or PARALLEL_API_KEY/)
  await assert.rejects(none.call('web_search', { query: 'x' }), /no web backend is configured/)
  const wrongKey = await setup(t, { env: { FIRECRAWL_API_KEY: 'fc-wrong-key-000000' } })
  await assert.rejects(wrongKey.call('web_search', { query: 'x' }), (error: Error) => /firecrawl answered HTTP 401: Unauthorized/.test(error.message) && !error.message.includes('fc-wrong-key'))
})
