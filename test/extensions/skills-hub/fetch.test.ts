// Hub reads apply the website policy to every redirect hop: a hub that redirects to a blocked host
// (in any IP spelling) is refused before that host is contacted.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { websitePolicy } from 'agent/sdk'
import { fetchBytes } from '../../../extensions/skills-hub/fetch.ts'

test('a redirect to a blocked host is refused at that hop; an allowed one is followed', async (t) => {
  const blockedHits: string[] = []
  const blocked = createServer((req, res) => (blockedHits.push(req.url ?? ''), res.end('secret')))
  await new Promise<void>((r) => blocked.listen(0, '127.0.0.2', r))
  const blockedPort = (blocked.address() as AddressInfo).port
  const hub = createServer((req, res) => {
    if (req.url === '/away') res.writeHead(302, { location: `http://[::ffff:127.0.0.2]:${blockedPort}/index.json` }).end()
    else if (req.url === '/moved') res.writeHead(301, { location: '/index.json' }).end()
    else res.end('{"skills": []}')
  })
  await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r))
  t.after(async () => {
    for (const server of [blocked, hub]) await new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()) })
  })
  const base = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`
  const policy = websitePolicy({ get: <T>() => ({ domains: ['127.0.0.2'] }) as T, home: '/nonexistent' })
  const limits = { timeoutMs: 5000, maxBytes: 1024, allow: (url: URL) => policy.check(url.href).message }

  assert.equal((await fetchBytes(`${base}/moved`, limits)).toString(), '{"skills": []}')
  await assert.rejects(fetchBytes(`${base}/away`, limits), /Blocked by website policy: 127\.0\.0\.2 .*reached by a redirect/)
  assert.deepEqual(blockedHits, [])
})
