// The reference server (server-everything) over Streamable HTTP, in a running agent: a server
// killed mid-call fails that call at once (not after the tool timeout), and once it is back the
// next call works on a new session without /reload-mcp; a reload keeps the session, unloading
// ends it with DELETE.
// The same server in legacy SSE mode is reached through the fallback and recovers the same way.

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { ToolDefinition } from 'agent/sdk'
import { createTestKernel, makeTempHome, type TestKernel } from 'agent/sdk/testing'
import { untilValue as until } from '../../helpers/until.ts'
import { startEverythingHttp, type EverythingHttp } from './everything-server.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('server-everything over HTTP: a server that dies mid-call, restarts, and legacy SSE', () => {
  let t: TestKernel
  let http: EverythingHttp
  let sse: EverythingHttp
  const logs: string[] = []
  const tool = (name: string) => t.kernel.registries.tools.get(name) as ToolDefinition | undefined
  const call = (name: string, input: unknown) => tool(name)!.execute({ input, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: t.home } })

  before(async () => {
    http = await startEverythingHttp('streamableHttp')
    sse = await startEverythingHttp('sse')
    t = await createTestKernel({
      home: makeTempHome(),
      builtins: ['mcp'],
      // A tool timeout far longer than the test: a call held until it would fail the test.
      config: { mcp_servers: { ev: { url: http.url, timeout: 600 }, old: { url: sse.url, timeout: 600 } } },
      kernel: { logLevel: 'info', logSink: { write: (line) => void logs.push(line) } },
    })
    await t.kernel.start('chat')
    await until('the bridged tools', () => tool('mcp__ev__echo') && tool('mcp__old__echo'))
  })
  after(async () => {
    await t.close()
    await http.kill()
    await sse.kill()
    rmSync(t.home, { recursive: true, force: true })
  })

  it('calls a tool over Streamable HTTP and over the legacy SSE fallback', async () => {
    assert.equal(await call('mcp__ev__echo', { message: 'over http' }), 'Echo: over http')
    assert.equal(await call('mcp__old__echo', { message: 'over sse' }), 'Echo: over sse')
  })

  it('a server killed during a call fails the call at once; restarted, the next call works on a new session', async () => {
    const long = Promise.resolve(call('mcp__ev__trigger-long-running-operation', { duration: 60, steps: 60 })).then(
      () => assert.fail('the call succeeded'),
      (error: Error) => error,
    )
    await until('the call running', () => /Received MCP POST request[\s\S]*Received MCP POST request/.test(http.output()) || undefined)
    await sleep(300)
    const port = http.port
    await http.kill()
    assert.match((await long).message, /MCP server "ev" stopped during the call: the server closed the connection/)
    http = await startEverythingHttp('streamableHttp', port)
    assert.equal(await call('mcp__ev__echo', { message: 'back' }), 'Echo: back')
    assert.ok(logs.some((l) => /MCP server "ev" reconnected \(new session\)/.test(l)), logs.join('\n'))
  })

  it('the same over legacy SSE: killed mid-call fails the call at once, restarted it is reached again', async () => {
    const long = Promise.resolve(call('mcp__old__trigger-long-running-operation', { duration: 60, steps: 60 })).then(
      () => assert.fail('the call succeeded'),
      (error: Error) => error,
    )
    await until('the call running', () => /Client Message from[\s\S]*Client Message from[\s\S]*Client Message from/.test(sse.output()) || undefined)
    await sleep(300)
    const port = sse.port
    await sse.kill()
    assert.match((await long).message, /MCP server "old" stopped during the call/)
    sse = await startEverythingHttp('sse', port)
    assert.equal(await call('mcp__old__echo', { message: 'sse back' }), 'Echo: sse back')
  })

  it('a server restarted between calls (our session unknown to it) is reconnected transparently', async () => {
    const port = http.port
    await http.kill()
    http = await startEverythingHttp('streamableHttp', port)
    assert.equal(await call('mcp__ev__echo', { message: 'again' }), 'Echo: again')
  })

  it('a reload keeps the session; unloading ends it with DELETE', async () => {
    await t.kernel.reload('mcp')
    assert.equal(await call('mcp__ev__echo', { message: 'same session' }), 'Echo: same session')
    assert.doesNotMatch(http.output(), /Received session termination request/)
    await t.kernel.unload('mcp')
    await until('the DELETE', () => /Received session termination request/.test(http.output()) || undefined, 10_000)
  })
})
