// examples/deploy is documentation no container engine runs here; this keeps it true to the code:
// a kernel given a gateway service's environment (placeholders filled in) picks PostgreSQL at the
// compose host, serves the API on 0.0.0.0:8642 with a key and /ready on it, and selects the custom
// model endpoint; Caddy balances over exactly the gateway services on that port, checking /ready;
// the grace period outlasts the drain; the Dockerfile starts the bin that exists.

import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { MODELS_SERVICE, STORAGE_SERVICE, type ModelsService, type StorageService } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import gateway from '../../extensions/gateway/index.ts'
import { resolveListener } from '../../extensions/http/listeners.ts'

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..')
const deploy = join(root, 'examples', 'deploy')
const compose = YAML.parse(readFileSync(join(deploy, 'compose.yaml'), 'utf8'), { merge: true })
const gateways = Object.keys(compose.services).filter((name) => compose.services[name].build)

/** ${NAME:?message} and ${NAME:-default} as compose fills them, from `values`. */
function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{(\w+)(?::[?-][^}]*)?\}/g, (_, name: string) => values[name] ?? '')
}

test('each gateway service configures the agent as the guide says', async (t) => {
  assert.deepEqual(gateways, ['gateway-a', 'gateway-b'])
  const values = { POSTGRES_PASSWORD: 'hunter22', API_SERVER_KEY: 'k'.repeat(32), OPENAI_BASE_URL: 'http://vllm:8000/v1' }
  const env = Object.fromEntries(Object.entries(compose.services['gateway-a'].environment as Record<string, string>).map(([k, v]) => [k, fill(String(v), values)]))
  const k = await createTestKernel({ builtins: ['state-db', 'storage', 'http', 'telemetry', 'model-resolver', 'provider-openai-compat', 'runtime', 'sessions', 'api-server'], env })
  t.after(() => k.close())
  const storage = k.kernel.services.require<StorageService>(STORAGE_SERVICE)
  assert.equal(storage.backend, 'postgres')
  assert.match(storage.postgres().label, /^postgres:\/\/agent:\*\*\*@postgres:5432\/agent /)
  const api = resolveListener('api', k.kernel.settings, {})
  assert.deepEqual([api.host, api.port, api.key], ['0.0.0.0', 8642, values.API_SERVER_KEY])
  assert.ok(k.kernel.registries.endpoints.list().some((e: any) => e.listener === 'api' && e.path === '/ready'), '/ready is served on the api listener')
  const model = k.kernel.services.require<ModelsService>(MODELS_SERVICE).select()
  assert.deepEqual([model.provider, model.source], ['custom', 'env'], 'the custom endpoint (its client reads OPENAI_BASE_URL)')
  assert.equal(env.API_SERVER_ENABLED, 'true')
})

test('Caddy balances over the gateway services on the API port, checking /ready', () => {
  const caddy = readFileSync(join(deploy, 'Caddyfile'), 'utf8')
  const upstreams = /reverse_proxy\s+([^{]+)\{/.exec(caddy)![1]!.trim().split(/\s+/)
  assert.deepEqual(upstreams, gateways.map((g) => `${g}:8642`))
  assert.match(caddy, /^\s*health_uri \/ready$/m)
  assert.deepEqual(compose.services.lb.volumes, ['./Caddyfile:/etc/caddy/Caddyfile:ro'])
  assert.match(compose.services['gateway-a'].healthcheck.test.join(' '), /127\.0\.0\.1:8642\/ready/)
})

test('the grace period outlasts the drain, and the image starts the bin there is', () => {
  const drain = (gateway.config as any).properties.drain_timeout_seconds.default as number
  assert.ok(Number.parseInt(compose.services['gateway-b'].stop_grace_period, 10) > drain, `stop_grace_period > ${drain} s`)
  const dockerfile = readFileSync(join(deploy, 'Dockerfile'), 'utf8')
  const entry = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]!) as string[]
  assert.equal(entry[0], 'node')
  assert.ok(existsSync(join(root, entry[1]!)), entry[1])
  assert.deepEqual(JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!), ['gateway', 'run'])
  for (const copied of ['package.json', 'package-lock.json']) assert.ok(existsSync(join(root, copied)), copied)
})
