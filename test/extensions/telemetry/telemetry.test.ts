// The telemetry extension end to end: a real `agent gateway run` with the API server and a scripted
// model that calls a tool once. /metrics (behind the API key) counts the request, the run, the
// tokens and the tool call; /ready needs no key; traces go to a loopback OTLP/HTTP collector fake
// with the request → run → model call / tool call nesting.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { sendJson, startLoopbackServer } from '../../../sdk/testing/loopback-server.ts'
import { startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { until } from '../../helpers/until.ts'

/** Every request to the agent gives up after 30 s: a wedged process fails the test instead of hanging it. */
const boundedFetch = (url: string, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(30_000) })
import { tracesWanted } from '../../../extensions/telemetry/tracing.ts'

const KEY = 'srv-telemetry-key-4c6e8a0b2d4f'

/** First turn reads a file, second answers; usage on both. */
async function toolModel(t: TestContext): Promise<ScriptedModelServer> {
  const model = await startScriptedModel({
    respond(body: any) {
      const done = body.messages.some((m: any) => m.role === 'tool')
      return done ? { text: 'it says hello', usage: { prompt_tokens: 30, completion_tokens: 4 } } : { toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'note.txt' } }], usage: { prompt_tokens: 20, completion_tokens: 7 } }
    },
  })
  t.after(() => model.close())
  return model
}

async function gateway(t: TestContext, model: ScriptedModelServer, env: Record<string, string> = {}) {
  const home = tempDir(t, 'agent-home-')
  const project = tempDir(t, 'agent-project-')
  writeFileSync(join(project, 'note.txt'), 'hello\n')
  const agent = startAgent(['gateway', 'run'], {
    home,
    cwd: project,
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, AGENT_MODEL: 'scripted-model', OPENAI_API_KEY: 'sk-telemetry-test', API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: KEY, ...env },
  })
  t.after(() => agent.stop())
  const url = (await agent.waitFor(/listening: api on (http:\/\/\S+)/, 60_000))[1]!
  return { agent, url }
}

const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }

async function chat(url: string) {
  const answer = await boundedFetch(`${url}/v1/chat/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ model: 'agent', messages: [{ role: 'user', content: 'what does note.txt say?' }] }) })
  const text = await answer.text()
  assert.equal(answer.status, 200, text)
}

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((pair) => l.includes(pair)))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

test('/metrics counts requests, runs, tokens and tool calls behind the API key; /ready needs none', async (t) => {
  const model = await toolModel(t)
  const { url } = await gateway(t, model)
  await chat(url)

  const refused = await boundedFetch(`${url}/metrics`)
  assert.equal(refused.status, 401)
  const wrong = await boundedFetch(`${url}/metrics`, { headers: { authorization: 'Bearer srv-telemetry-key-4c6e8a0b2d4e' } })
  assert.equal(wrong.status, 401)

  const scraped = await boundedFetch(`${url}/metrics`, { headers: auth })
  assert.equal(scraped.status, 200)
  assert.match(scraped.headers.get('content-type') ?? '', /^text\/plain/)
  const text = await scraped.text()
  assert.equal(sample(text, 'agent_http_requests_total', 'route="/v1/chat/completions",status="200"'), 1, text)
  assert.equal(sample(text, 'agent_http_requests_total', 'route="/metrics",status="401"'), 2, text)
  assert.equal(sample(text, 'agent_http_request_duration_seconds_count', 'route="/v1/chat/completions"'), 1, text)
  assert.equal(sample(text, 'agent_runs_total', 'exit_reason="completed",source="api_server"'), 1, text)
  assert.equal(sample(text, 'agent_model_calls_total', 'model="scripted-model"'), 2, text)
  assert.equal(sample(text, 'agent_tokens_total', 'direction="input"'), 50, text)
  assert.equal(sample(text, 'agent_tokens_total', 'direction="output"'), 11, text)
  assert.equal(sample(text, 'agent_tool_calls_total', 'tool="read_file",outcome="ok"'), 1, text)
  assert.equal(sample(text, 'agent_adapter_state', 'adapter="api_server",state="running"'), 1, text)
  assert.equal(sample(text, 'agent_adapter_state', 'adapter="api_server",state="failed"'), 0, text)
  assert.equal(sample(text, 'agent_outbox_queued', 'adapter="api_server"'), 0, text)
  assert.equal(sample(text, 'agent_runs_in_progress', ''), undefined, 'a gauge without labels has no braces')
  assert.match(text, /^agent_runs_in_progress 0$/m)
  assert.ok(!text.includes(KEY) && !text.includes('sk-telemetry-test'), 'no secret in the metrics')

  const ready = await boundedFetch(`${url}/ready`)
  assert.equal(ready.status, 200)
  assert.deepEqual(await ready.json(), { status: 'ready' })
  // An unknown path is counted under one label, never its raw path.
  await (await boundedFetch(`${url}/v1/nothing/secret-looking-id`, { headers: auth })).text()
  const again = await (await boundedFetch(`${url}/metrics`, { headers: auth })).text()
  assert.equal(sample(again, 'agent_http_requests_total', 'route="(unmatched)",status="404"'), 1, again)
  assert.ok(!again.includes('secret-looking-id'))
})

test('traces: OTEL_EXPORTER_OTLP_ENDPOINT sends the request, run, model and tool spans, nested, to the collector', async (t) => {
  const collector = await startLoopbackServer({}, (_request, res) => sendJson(res, 200, {}))
  t.after(() => collector.close())
  const model = await toolModel(t)
  const { agent, url } = await gateway(t, model, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'agent-under-test' })
  await chat(url)
  // The batch is sent at the latest when the gateway stops.
  assert.equal(await agent.stop('SIGTERM'), 0)
  await until(() => collector.requests.some((r) => r.path === '/v1/traces'), 10_000, 'a trace export')

  const exports = collector.requests.filter((r) => r.path === '/v1/traces')
  const resources = exports.flatMap((r) => r.body.resourceSpans)
  const service = resources[0].resource.attributes.find((a: any) => a.key === 'service.name')
  assert.equal(service.value.stringValue, 'agent-under-test')
  const spans = resources.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans))
  const named = (name: string) => spans.filter((s: any) => s.name === name)
  const request = named('POST /v1/chat/completions')
  assert.equal(request.length, 1, JSON.stringify(spans.map((s: any) => s.name)))
  assert.equal(request[0].kind, 2, 'a server span')
  const [run] = named('invoke_agent agent')
  assert.ok(run, 'a run span')
  assert.equal(run.parentSpanId, request[0].spanId)
  const calls = named('chat scripted-model')
  assert.equal(calls.length, 2)
  for (const call of calls) assert.equal(call.parentSpanId, run.spanId)
  const [tool] = named('execute_tool read_file')
  assert.ok(tool, 'a tool span')
  assert.equal(tool.parentSpanId, run.spanId)
  assert.ok(spans.every((s: any) => s.traceId === request[0].traceId), 'one trace')
  const attribute = (span: any, key: string) => span.attributes.find((a: any) => a.key === key)?.value
  assert.equal(attribute(request[0], 'http.response.status_code').intValue, 200)
  assert.equal(attribute(run, 'agent.exit_reason').stringValue, 'completed')
  assert.ok(!JSON.stringify(exports.map((r) => r.body)).includes(KEY), 'no secret in the traces')
})

test('tracesWanted: the standard variables switch traces on; unset or none leaves them off', () => {
  assert.equal(tracesWanted({}), false)
  assert.equal(tracesWanted({ OTEL_SERVICE_NAME: 'x' }), false, 'a service name alone is not a request for traces')
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true)
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true)
  assert.equal(tracesWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true)
  assert.equal(tracesWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), false)
  assert.equal(tracesWanted({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), false)
})
