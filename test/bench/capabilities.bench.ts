// What capability checks cost: (1) loading a large set — 200 capabilities in 40 files, parsed,
// checked and resolved (target ≤ 50 ms); (2) one access decision, in process (target p50 ≤ 20 µs);
// (3) one IPC call through a running agent — token verification, origin, ACL, handler — over a
// kept-alive connection (target p50 ≤ 2 ms). Prints figures; asserts nothing.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import { appManifest, builtinManifests, checkCapabilityFiles, defineExtension, exposeToFrontends, HTTP_SERVICE, ResolvedAcl, type HttpService } from '../../sdk/index.ts'
import { createTestKernel, makeTempHome } from '../../sdk/testing/index.ts'
import { issueToken, loadSecret } from '../../extensions/capabilities/token.ts'

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!

// (1) a large set
const commands = Array.from({ length: 100 }, (_, i) => `command_${i}`)
const manifests = () => builtinManifests(appManifest({ commands }))
const files = Array.from({ length: 40 }, (_, f) => ({
  file: `caps-${f}.json`,
  text: JSON.stringify(
    Array.from({ length: 5 }, (_, c) => ({
      identifier: `cap-${f}-${c}`,
      windows: [`win-${f}-*`, 'main'],
      webviews: [`panel-${c}`],
      remote: { urls: [`https://*.site${f}.example.com`] },
      permissions: ['core:default', 'opener:default', ...commands.slice(c * 10, c * 10 + 10).map((name) => `allow-${name.replace(/_/g, '-')}`), { identifier: 'opener:allow-open-path', allow: [{ path: `$HOME/f${f}/**` }] }],
    })),
  ),
}))
const loads: number[] = []
let acl: ResolvedAcl | undefined
for (let i = 0; i < 20; i++) {
  const started = performance.now()
  const m = manifests()
  const checked = checkCapabilityFiles(files, m)
  if (checked.problems.length) throw new Error(checked.problems[0]!.message)
  acl = new ResolvedAcl(checked.capabilities, { platform: 'linux', manifests: m })
  loads.push(performance.now() - started)
}
console.log(`load 200 capabilities / 40 files: p50 ${pct(loads, 50).toFixed(1)} ms, max ${Math.max(...loads).toFixed(1)} ms (target p50 ≤ 50 ms)`)

// (2) decisions
const decisions: number[] = []
const requests = [
  { command: 'command_7', window: 'main', origin: { kind: 'local' as const } },
  { command: 'plugin:window|title', window: 'win-3-x', origin: { kind: 'local' as const } },
  { command: 'command_42', window: 'nobody', webview: 'panel-4', origin: { kind: 'remote' as const, url: 'https://a.site9.example.com/x' } },
  { command: 'plugin:window|close', window: 'main', origin: { kind: 'local' as const } },
]
for (let i = 0; i < 20_000; i++) {
  const started = performance.now()
  acl!.check(requests[i % requests.length]!)
  if (i >= 2_000) decisions.push((performance.now() - started) * 1000)
}
console.log(`one decision: p50 ${pct(decisions, 50).toFixed(1)} µs, p99 ${pct(decisions, 99).toFixed(1)} µs (target p50 ≤ 20 µs)`)

// (3) IPC round trips
const home = makeTempHome('agent-cap-bench-')
mkdirSync(join(home, 'capabilities'))
writeFileSync(join(home, 'capabilities', 'main.json'), JSON.stringify({ identifier: 'main', windows: ['main'], permissions: ['allow-ping'] }))
const tk = await createTestKernel({
  home,
  builtins: ['http', 'capabilities'],
  env: { API_SERVER_PORT: '0' },
  extensions: [defineExtension({ name: 'bench-front', dependsOn: ['capabilities'], setup: (api) => exposeToFrontends(api, [{ name: 'ping', handler: () => 'pong' }]) })],
})
try {
  await tk.kernel.start('gateway')
  const url = new URL(`${tk.kernel.services.require<HttpService>(HTTP_SERVICE).address('api')!.url}/ipc/ping`)
  const token = issueToken(loadSecret(home), { window: 'main', ttlSeconds: 600 }).token
  const pool = new Agent({ keepAlive: true, maxSockets: 1 })
  const call = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now()
      const req = request(url, { method: 'POST', agent: pool, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': 2 } }, (res) => {
        res.resume()
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))))
      })
      req.on('error', reject)
      req.end('{}')
    })
  const times: number[] = []
  for (let i = 0; i < 1_200; i++) {
    const t = await call()
    if (i >= 200) times.push(t)
  }
  pool.destroy()
  console.log(`IPC call (token, ACL, handler): p50 ${pct(times, 50).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms (target p50 ≤ 2 ms)`)
} finally {
  await tk.close()
  rmSync(home, { recursive: true, force: true })
}
