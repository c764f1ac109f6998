// What shared storage costs and what a second instance adds: `agent gateway run` serving stored
// responses (POST /v1/responses: a run, its session and messages, the stored response) against a
// zero-latency scripted model, in three set-ups on one machine:
//   one gateway on SQLite; one gateway on PostgreSQL; two gateways on one PostgreSQL database with
//   the clients taking them in turn (round robin, as a load balancer would).
// Reported: sequential p50/p99 and the latency PostgreSQL adds over SQLite; throughput at 16 clients
// (median of 3 rounds) and the two-instance ratio. On 2 cores shared by both gateways, PostgreSQL
// and the clients, the scaling figure is a floor, not a ceiling.
// PostgreSQL: AGENT_TEST_DATABASE_URL (an admin URL), else test/postgres.sh starts a loopback one.
// Durability alike on both sides: by default SQLite's synchronous=normal (WAL) against PostgreSQL's
// synchronous_commit=off (either may lose the last commits to a power cut, neither corrupts);
// BENCH_SYNC=full compares synchronous=full against synchronous_commit=on (an fsync per commit).
// response_store_capacity is raised so no run evicts: eviction is not what is measured here.

import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import YAML from 'yaml'
import { createTestDatabase, startScriptedModel } from '../../sdk/testing/index.ts'
import { startAgent, type RunningAgent } from '../helpers/agent-process.ts'
import { jsonLoad, percentile } from './http-load.ts'

const WARMUP = 600
const SEQUENTIAL = 300
const CONCURRENCY = 16
const ROUNDS = 3
const ROUND_REQUESTS = 1000

const { sequential, throughput, close: closeLoad } = jsonLoad(JSON.stringify({ model: 'agent', input: 'hello', store: true }), CONCURRENCY)

interface Figures { p50: number; p99: number; rps: number; rounds: number[] }

async function measure(urls: URL[]): Promise<Figures> {
  await sequential(urls, WARMUP / 2)
  await throughput(urls, WARMUP / 2)
  const times = await sequential(urls, SEQUENTIAL)
  const rounds: number[] = []
  for (let r = 0; r < ROUNDS; r++) rounds.push(await throughput(urls, ROUND_REQUESTS))
  return { p50: percentile(times, 50), p99: percentile(times, 99), rps: percentile(rounds, 50), rounds }
}

// A PostgreSQL server: the one named, or a loopback one started (and removed) here.
let pgDir: string | undefined
if (!process.env.AGENT_TEST_DATABASE_URL) {
  const exports = execFileSync('bash', ['test/postgres.sh', 'start'], { encoding: 'utf8' })
  for (const [, name, value] of exports.matchAll(/(\w+)=(\S+)/g)) process.env[name!] = value
  pgDir = process.env.AGENT_TEST_PG_DIR
  if (!process.env.AGENT_TEST_DATABASE_URL) throw new Error('PostgreSQL is not installed here: test/postgres.sh started nothing')
}

const homes: string[] = []
const gateways: RunningAgent[] = []
const model = await startScriptedModel({ record: false, respond: () => ({ text: 'Hello! How can I help?', usage: { prompt_tokens: 12, completion_tokens: 6 } }) })
const database = await createTestDatabase()
const sync = process.env.BENCH_SYNC === 'full' ? 'full' : 'normal'
{
  const { Client } = (await import('pg')).default
  const client = new Client({ connectionString: database.url })
  await client.connect()
  await client.query(`ALTER DATABASE ${database.name} SET synchronous_commit = ${sync === 'full' ? 'on' : 'off'}`)
  await client.end()
}

async function gateway(storage: Record<string, unknown>): Promise<URL> {
  const home = mkdtempSync(join(tmpdir(), 'agent-bench-storage-'))
  homes.push(home)
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, platforms: { api_server: { enabled: true, extra: { max_concurrent_runs: 64, response_store_capacity: 1_000_000 } } }, state_db: { synchronous: sync }, ...storage }))
  const agent = startAgent(['gateway', 'run'], { home, env: { API_SERVER_PORT: '0', AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'bench-key', AGENT_MODEL: 'scripted-model' } })
  gateways.push(agent)
  const [, base] = await agent.waitFor(/listening: api on (http:\/\/\S+)/, 30_000)
  await agent.waitFor(/gateway running/, 30_000)
  return new URL(`${base}/v1/responses`)
}

async function stopAll(): Promise<void> {
  await Promise.all(gateways.splice(0).map((g) => g.stop('SIGINT')))
}

try {
  console.error('storage bench: one gateway on SQLite …')
  const sqlite = await measure([await gateway({})])
  await stopAll()
  const pg = { storage: { url: database.url } }
  console.error('storage bench: one gateway on PostgreSQL …')
  const one = await measure([await gateway(pg)])
  await stopAll()
  console.error('storage bench: two gateways on PostgreSQL …')
  const two = await measure([await gateway(pg), await gateway(pg)])
  await stopAll()

  const row = (name: string, f: Figures) => `  ${name.padEnd(26)} p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms; ${Math.round(f.rps)} req/s at ${CONCURRENCY} clients (rounds ${f.rounds.map(Math.round).join(', ')})`
  console.log([
    `storage: POST /v1/responses (stored), zero-latency scripted model, loopback, sequential then 16 clients; SQLite synchronous=${sync}, PostgreSQL synchronous_commit=${sync === 'full' ? 'on' : 'off'}`,
    row('one gateway, SQLite', sqlite),
    row('one gateway, PostgreSQL', one),
    row('two gateways, PostgreSQL', two),
    `  PostgreSQL over SQLite: added p50 ${(one.p50 - sqlite.p50).toFixed(2)} ms, p99 ${(one.p99 - sqlite.p99).toFixed(2)} ms; throughput ${(one.rps / sqlite.rps).toFixed(2)} ×`,
    `  two instances over one (same database, round robin): throughput ${(two.rps / one.rps).toFixed(2)} × (2 cores shared by gateways, PostgreSQL and clients: a floor)`,
  ].join('\n'))
} catch (error) {
  // What the gateways said is the first thing to read when a request fails.
  for (const g of gateways) console.error(g.stderr().split('\n').slice(-15).join('\n'))
  throw error
} finally {
  closeLoad()
  await stopAll()
  await model.close()
  await database.drop()
  for (const home of homes) rmSync(home, { recursive: true, force: true })
  if (pgDir) execFileSync('bash', ['test/postgres.sh', 'stop', pgDir])
}
