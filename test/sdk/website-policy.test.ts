// The website policy on canonical hosts (every IP spelling meets its rule, look-alike names do not)
// and fetchGuarded, which checks every redirect hop before requesting it, against loopback servers.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { AgentError, canonicalHost, fetchGuarded, websitePolicy } from '../../sdk/index.ts'

const policy = (domains: unknown[], home = '/nonexistent') => websitePolicy({ get: <T>(key: string) => (key === 'security.website_blocklist' ? ({ domains } as T) : undefined), home })

test('canonical hosts: IP spellings, embedded IPv4, brackets, trailing dots, case', () => {
  const cases: Array<[string, string]> = [
    ['127.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1'],
    ['::7f00:1', '127.0.0.1'],
    ['64:ff9b::7f00:1', '127.0.0.1'],
    ['2002:7f00:1::', '127.0.0.1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['[FE80::1%eth0]', 'fe80::1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['Example.COM..', 'example.com'],
    ['127.example.com', '127.example.com'],
  ]
  for (const [input, expected] of cases) assert.equal(canonicalHost(input), expected, input)
})

test('a 127.0.0.1 rule refuses every spelling of it and of this machine; look-alike names pass', () => {
  const p = policy(['127.0.0.1'])
  const refused = ['http://127.0.0.1/', 'http://127.1/', 'http://2130706433/', 'http://0x7f.0.0.1/', 'http://017700000001/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]:8080/x', 'http://[::127.0.0.1]/', 'http://[64:ff9b::7f00:1]/', 'http://127.0.0.1./', 'http://LOCALHOST./', 'http://app.localhost/', 'http://0.0.0.0/', 'http://[::1]/', 'http://[::]/', 'foo://0x7f.0.0.1/', '127.1:8080/path']
  for (const url of refused) assert.equal(p.check(url).blocked, true, url)
  const allowed = ['http://127.example.com/', 'http://127.0.0.1.example.com/', 'http://127.0.0.2/', 'http://example.com/127.0.0.1', 'http://10.0.0.1/', 'http://localhost.example.com/', 'http://[::2]/']
  for (const url of allowed) assert.equal(p.check(url).blocked, false, url)
  assert.match(p.check('http://[::ffff:127.0.0.1]/').message!, /Blocked by website policy: 127\.0\.0\.1 matches "127\.0\.0\.1"/)
})

test('rules are canonical too: IPv6 and mapped spellings, ports, names with dots and case, CIDR ranges', () => {
  assert.equal(policy(['[::ffff:127.0.0.1]:8080']).check('http://127.0.0.1/').blocked, true)
  assert.equal(policy(['0x7f.1']).check('http://127.0.0.1/').blocked, true)
  assert.equal(policy(['[::1]']).check('http://localhost:3000/').blocked, true)
  assert.equal(policy(['localhost']).check('http://127.0.0.1/').blocked, true)
  const names = policy(['Example.COM.', 'tracker.net:443'])
  for (const url of ['https://EXAMPLE.com./a', 'https://sub.example.com../', 'https://tracker.net/']) assert.equal(names.check(url).blocked, true, url)
  for (const url of ['https://example.com.evil.net/', 'https://notexample.com/']) assert.equal(names.check(url).blocked, false, url)
  const ranges = policy(['10.0.0.0/8', '::ffff:192.168.0.0/112', 'fe80::/10'])
  for (const url of ['http://10.1.2.3/', 'http://[::ffff:10.1.2.3]/', 'http://012.1.2.3/', 'http://192.168.7.7/', 'http://[fe80::1]/']) assert.equal(ranges.check(url).blocked, true, url)
  for (const url of ['http://11.0.0.1/', 'http://192.169.0.1/', 'http://10.example.com/']) assert.equal(ranges.check(url).blocked, false, url)
  // An address rule covers that address only, never as a domain suffix.
  assert.equal(policy(['0.0.1']).check('http://127.0.0.1/').blocked, false)
  // A malformed range is an invalid policy: everything is refused.
  assert.match(policy(['10.0.0.0/40']).check('https://example.org/').message!, /website_blocklist is invalid.*prefix longer/)
})

async function serve(t: import('node:test').TestContext, host: string, handler: (path: string, port: number) => { status: number; location?: string }) {
  const hits: string[] = []
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '/')
    const answer = handler(req.url ?? '/', (server.address() as AddressInfo).port)
    res.writeHead(answer.status, answer.location ? { location: answer.location } : {})
    res.end(answer.status === 200 ? `hello from ${host}${req.url}` : '')
  })
  await new Promise<void>((r) => server.listen(0, host, r))
  t.after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()) }))
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, port: (server.address() as AddressInfo).port, hits }
}

test('fetchGuarded: a redirect from an allowed host to a blocked one is refused before it is requested, in every spelling', async (t) => {
  const blocked = await serve(t, '127.0.0.2', () => ({ status: 200 }))
  const spellings = ['127.0.0.2', '127.2', '2130706434', '0x7f.0.0.2', '017700000002', '[::ffff:127.0.0.2]', '[::ffff:7f00:2]', '127.0.0.2.']
  const allowed = await serve(t, '127.0.0.1', (path) => {
    const index = Number(/^\/to\/(\d+)$/.exec(path)?.[1] ?? -1)
    if (index >= 0) return { status: 302, location: `http://${spellings[index]}:${blocked.port}/secret` }
    if (path === '/hop') return { status: 301, location: '/final' }
    return { status: 200 }
  })
  const p = policy(['127.0.0.2'])
  const check = (url: URL) => (p.check(url.href).blocked ? p.check(url.href).message : undefined)

  const ok = await fetchGuarded(`${allowed.url}/hop`, { check })
  assert.equal(await ok.response.text(), 'hello from 127.0.0.1/final')
  assert.deepEqual(ok.hops.map((u) => u.pathname), ['/hop', '/final'])

  for (const [index, spelling] of spellings.entries()) {
    await assert.rejects(fetchGuarded(`${allowed.url}/to/${index}`, { check }), (error: unknown) => AgentError.isInstance(error) && error.code === 'E_BLOCKED' && /127\.0\.0\.2.*reached by a redirect/.test(error.message), spelling)
  }
  assert.deepEqual(blocked.hits, [], 'the blocked host was never contacted')
  // The same spelling asked for directly is refused before any request too.
  await assert.rejects(fetchGuarded(`http://[::ffff:127.0.0.2]:${blocked.port}/`, { check }), /Blocked by website policy/)
  assert.deepEqual(blocked.hits, [])
})

test('fetchGuarded: redirect chains are bounded; credentials do not follow to another origin', async (t) => {
  const seen: Array<string | undefined> = []
  const loop = await serve(t, '127.0.0.1', (path, port) => {
    const n = Number(path.slice(1))
    return { status: 302, location: `http://127.0.0.1:${port}/${n + 1}` }
  })
  await assert.rejects(fetchGuarded(`${loop.url}/0`, { check: () => undefined, maxRedirects: 3 }), (error: unknown) => AgentError.isInstance(error) && error.code === 'E_REDIRECTS')
  assert.deepEqual(loop.hits, ['/0', '/1', '/2', '/3'], 'three redirects followed, the fourth refused')

  const probe = createServer((req, res) => {
    seen.push(req.headers.authorization)
    res.end('ok')
  })
  await new Promise<void>((r) => probe.listen(0, '127.0.0.2', r))
  t.after(() => new Promise<void>((r) => { probe.closeAllConnections(); probe.close(() => r()) }))
  const crossing = await serve(t, '127.0.0.1', () => ({ status: 307, location: `http://127.0.0.2:${(probe.address() as AddressInfo).port}/` }))
  const result = await fetchGuarded(crossing.url, { check: () => undefined, init: { headers: { authorization: 'Bearer sk-secret' } } })
  assert.equal(await result.response.text(), 'ok')
  assert.deepEqual(seen, [undefined])
})
