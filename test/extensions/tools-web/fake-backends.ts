// Loopback fakes of the two web backends' REST APIs (Firecrawl v2, Parallel v1): they check the
// auth header each API uses, record every request, and answer in the documented shapes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Recorded {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: any
}

export async function startFakeWebApis(keys: { firecrawl: string; parallel: string }) {
  const requests: Recorded[] = []
  let crawlPolls = 0
  const server = createServer(async (req, res) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    const body = raw ? JSON.parse(raw) : undefined
    const path = req.url ?? '/'
    requests.push({ method: req.method ?? '', path, headers: req.headers, body })
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(value))
    }
    if (path.startsWith('/v2/')) {
      if (req.headers.authorization !== `Bearer ${keys.firecrawl}`) return send(401, { success: false, error: 'Unauthorized: invalid token' })
      if (path === '/v2/search') {
        return send(200, { success: true, data: { web: [
          { url: 'https://docs.example.org/a', title: 'A doc', description: `about ${body.query}`, position: 1 },
          { url: 'https://tracker.blocked.test/x', title: 'Blocked', description: 'should be filtered', position: 2 },
        ].slice(0, body.limit) } })
      }
      if (path === '/v2/scrape') {
        if (body.url.includes('missing')) return send(404, { success: false, error: 'page not found' })
        // Firecrawl follows redirects itself and reports the landing URL as metadata.url.
        if (body.url.includes('redirect-to-blocked')) return send(200, { success: true, data: { markdown: 'tracker content', metadata: { title: 'Landed', sourceURL: body.url, url: 'http://[::ffff:127.0.0.9]/landing', statusCode: 200 } } })
        return send(200, { success: true, data: { markdown: `# Page\ncontent of ${body.url}`, metadata: { title: 'Page title', sourceURL: body.url, statusCode: 200 } } })
      }
      if (path === '/v2/crawl' && req.method === 'POST') return send(200, { success: true, id: 'crawl-123', url: 'http://x/v2/crawl/crawl-123' })
      if (path === '/v2/crawl/crawl-123') {
        crawlPolls++
        if (crawlPolls < 2) return send(200, { status: 'scraping', total: 2, completed: 1, data: [] })
        return send(200, { status: 'completed', total: 3, completed: 3, data: [
          { markdown: 'home page', metadata: { title: 'Home', sourceURL: 'https://site.example.com/' } },
          { markdown: 'about page', metadata: { title: 'About', sourceURL: 'https://site.example.com/about' } },
          { markdown: 'ads', metadata: { title: 'Ads', sourceURL: 'https://ads.blocked.test/' } },
        ] })
      }
    }
    if (path.startsWith('/v1/')) {
      if (req.headers['x-api-key'] !== keys.parallel) return send(401, { error: { message: 'invalid api key', type: 'unauthorized' } })
      if (path === '/v1/search') {
        return send(200, { search_id: 'search_1', results: [{ url: 'https://news.example.net/story', title: 'Story', publish_date: '2026-01-01', excerpts: ['first excerpt', 'second excerpt'] }] })
      }
      if (path === '/v1/extract') {
        return send(200, {
          extract_id: 'extract_1',
          results: body.urls.filter((u: string) => !u.includes('missing')).map((u: string) => ({ url: u, title: 'Extracted', excerpts: ['ex'], full_content: `full content of ${u}` })),
          errors: body.urls.filter((u: string) => u.includes('missing')).map((u: string) => ({ url: u, error_type: 'fetch_error', http_status_code: 404, content: 'not found' })),
        })
      }
    }
    send(404, { error: `no route ${req.method} ${path}` })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    requests,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()) }),
  }
}
