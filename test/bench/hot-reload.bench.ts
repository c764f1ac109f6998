// Hot reload under load, against a real `agent gateway run` (scripted model, API server): 8 clients
// loop on POST /v1/chat/completions while extensions/api-server/chat-completions.ts (a file the
// extension imports lazily, on the first request) is saved ten times with a harmless change, then
// ten times with a syntax error (each followed by a fix). Target: 0 failed requests in both runs, and
// each broken save reported as a failed reload naming file:line:col, never as `reloaded`.
// The saves go to a copy of the agent's sources in a temporary folder (node_modules linked), run
// from that copy's bin: the repository's own files are never touched.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import YAML from 'yaml'
import { startScriptedModel } from '../../sdk/testing/index.ts'
import { startAgent } from '../helpers/agent-process.ts'

const CLIENTS = 8
const SAVES = 10
/** Load kept on each version between saves. */
const DWELL_MS = 400
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const work = mkdtempSync(join(tmpdir(), 'agent-bench-reload-'))
const copy = join(work, 'agent')
const home = join(work, 'home')
for (const part of ['kernel', 'sdk', 'extensions', 'package.json']) cpSync(join(ROOT, part), join(copy, part), { recursive: true })
symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir')
const target = join(copy, 'extensions', 'api-server', 'chat-completions.ts')
const original = readFileSync(target, 'utf8')

const model = await startScriptedModel({ record: false, respond: () => ({ text: 'Hello! How can I help?', usage: { prompt_tokens: 12, completion_tokens: 6 } }) })
mkdirSync(home)
writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, platforms: { api_server: { enabled: true, extra: { max_concurrent_runs: 64 } } } }))
const agent = startAgent(['gateway', 'run'], {
  home,
  bin: join(copy, 'kernel', 'bin', 'agent.mjs'),
  logLevel: 'info',
  env: { API_SERVER_PORT: '0', AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'bench-key', AGENT_MODEL: 'scripted-model' },
})

const pool = new Agent({ keepAlive: true, maxSockets: CLIENTS })
const body = JSON.stringify({ model: 'agent', messages: [{ role: 'user', content: 'hello' }] })

/** One request; resolves with the status (0 for a connection error) and, if it failed, why. */
function call(url: URL): Promise<{ status: number; error?: string }> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent: pool, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve(res.statusCode === 200 ? { status: 200 } : { status: res.statusCode ?? 0, error: Buffer.concat(chunks).toString().slice(0, 200) }))
    })
    req.on('error', (error) => resolve({ status: 0, error: error.message }))
    req.end(body)
  })
}

interface Load {
  stop(): Promise<{ total: number; failed: number; examples: string[] }>
}

/** CLIENTS loops until stopped. */
function load(url: URL): Load {
  let running = true
  let total = 0
  let failed = 0
  const examples: string[] = []
  const loops = Array.from({ length: CLIENTS }, async () => {
    while (running) {
      const result = await call(url)
      total++
      if (result.status !== 200) {
        failed++
        if (examples.length < 3) examples.push(`${result.status}: ${result.error}`)
      }
    }
  })
  return {
    async stop() {
      running = false
      await Promise.all(loops)
      return { total, failed, examples }
    },
  }
}

const count = (pattern: RegExp) => (agent.stderr().match(new RegExp(pattern.source, 'g')) ?? []).length

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for a reload outcome\nstderr tail: ${agent.stderr().slice(-2000)}`)
    if (agent.child.exitCode !== null) throw new Error(`the gateway exited (${agent.child.exitCode})\nstderr tail: ${agent.stderr().slice(-2000)}`)
    await sleep(20)
  }
}

const RELOADED = /reloaded "api-server"/
const FAILED = /reload of "api-server" failed, keeping the previous version: \S+chat-completions\.ts:\d+:\d+: /
// A syntax error a half-finished edit leaves: a statement cut off in the middle.
const broken = (i: number) => original.replace(/\n(export )/, `\nconst unfinished${i} = ;\n$1`)

try {
  const [, base] = await agent.waitFor(/listening: api on (http:\/\/\S+)/, 60_000)
  await agent.waitFor(/gateway running/, 60_000)
  const url = new URL(`${base}/v1/chat/completions`)
  for (let i = 0; i < 200; i++) await call(url) // warm: the lazy modules are loaded, V8 has optimised

  // Good saves: each one swaps in a new version.
  let reloads = count(RELOADED)
  let started = performance.now()
  let running = load(url)
  for (let i = 1; i <= SAVES; i++) {
    writeFileSync(target, `${original}\n// save ${i}\n`)
    await waitFor(() => count(RELOADED) > reloads)
    reloads = count(RELOADED)
    await sleep(DWELL_MS)
  }
  const good = await running.stop()
  const goodSeconds = (performance.now() - started) / 1000

  // Broken saves: each should be refused (the previous version keeps serving), then a fix swaps in.
  const outcomes = () => count(FAILED) + count(RELOADED)
  const failedBefore = count(FAILED)
  let seen = outcomes()
  started = performance.now()
  running = load(url)
  for (let i = 1; i <= SAVES; i++) {
    writeFileSync(target, broken(i))
    await waitFor(() => outcomes() > seen)
    seen = outcomes()
    await sleep(DWELL_MS)
    writeFileSync(target, `${original}\n// fix ${i}\n`)
    await waitFor(() => outcomes() > seen)
    seen = outcomes()
    await sleep(DWELL_MS)
  }
  const refused = count(FAILED) - failedBefore
  const bad = await running.stop()
  const badSeconds = (performance.now() - started) / 1000
  const example = agent.stderr().match(FAILED)?.[0] ?? ''
  const line = (what: string, r: { total: number; failed: number; examples: string[] }, seconds: number) =>
    `  ${what}: ${r.failed} failed of ${r.total} requests in ${seconds.toFixed(1)} s (target 0: ${r.failed === 0 ? 'met' : 'NOT MET'})${r.examples.length ? `; e.g. ${r.examples.join(' | ')}` : ''}`
  console.log(
    [
      `hot reload of api-server under ${CLIENTS} concurrent clients on /v1/chat/completions (${SAVES} saves of chat-completions.ts each, ${DWELL_MS} ms of load per version)`,
      line('good saves', good, goodSeconds),
      line('broken saves (each followed by a fix)', bad, badSeconds),
      `  broken saves refused (previous version kept): ${refused} of ${SAVES} (target ${SAVES}: ${refused === SAVES ? 'met' : 'NOT MET'})${example ? `, reported as: ${example.replace(copy, '<copy>')}…` : ''}`,
    ].join('\n'),
  )
} finally {
  pool.destroy()
  await agent.stop('SIGINT')
  await model.close()
  rmSync(work, { recursive: true, force: true })
}
