// Through the real runtime: a blocklisted site is refused and a crawl on the wrong backend is a tool
// error the model sees; search still goes to the backend's loopback fake.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RUNTIME_SERVICE, type AgentRuntime } from 'agent/sdk'
import { createTestKernel, startScriptedModel } from 'agent/sdk/testing'
import { startFakeWebApis } from './fake-backends.ts'

test('web tools in a run: blocked site refused, crawl on parallel errors, search works', async (t) => {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const fake = await startFakeWebApis({ firecrawl: 'fc-unused-000000', parallel: 'par-key-rt-123456' })
  t.after(() => fake.close())
  const k = await createTestKernel({
    builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'tools-web'],
    config: { web: { backend: 'parallel' }, security: { website_blocklist: { domains: ['blocked.test'] } } },
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-web', PARALLEL_API_KEY: 'par-key-rt-123456', PARALLEL_BASE_URL: fake.url },
  })
  t.after(() => k.close())
  model.enqueue(
    { toolCalls: [
      { id: 'a', name: 'web_extract', arguments: { urls: ['https://blocked.test/secret'] } },
      { id: 'b', name: 'web_crawl', arguments: { url: 'https://docs.example.org' } },
      { id: 'c', name: 'web_search', arguments: { query: 'agents' } },
    ] },
    { text: 'summarised' },
  )
  const result = await k.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'research', persist: false })
  assert.deepEqual(result.toolTrace.map((e) => [e.tool, e.status]), [['web_extract', 'error'], ['web_crawl', 'error'], ['web_search', 'ok']])
  const tools = model.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body.messages.filter((m: any) => m.role === 'tool')
  assert.match(tools[0].content, /Blocked by website policy: blocked\.test/)
  assert.match(tools[1].content, /web_crawl is not available on the parallel backend/)
  assert.match(tools[2].content, /news\.example\.net/)
  assert.deepEqual(fake.requests.map((r) => r.path), ['/v1/search'])
})
