// The reference MCP server `server-everything` (stdio; also its Streamable HTTP and SSE modes)
// through a real `agent chat -q` and a scripted model: the client capabilities it declares make the
// server offer its roots, sampling and elicitation tools; roots are the workspace, sampling goes to
// the agent's model when the approval policy allows it (and is refused when no one can be asked),
// elicitation is declined where no one can answer, a task-required tool runs as a task, resource
// links are readable, images reach the model as images, server log lines reach the log, and the
// server's instructions join the system prompt.

import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'
import { EVERYTHING_BIN, startEverythingHttp } from './everything-server.ts'

describe('server-everything (stdio) through agent chat -q', () => {
  let home: string
  let model: ScriptedModelServer
  const agent = (args: string[], logLevel: 'error' | 'info' = 'error') => runAgent(args, { home, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }, logLevel, timeoutMs: 60_000 })
  const setApprovals = (mode: string) => {
    const config = YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8'))
    config.approvals = { mode }
    writeFileSync(join(home, 'config.yaml'), YAML.stringify(config))
  }
  /** Runs chat -q with the scripted turns; returns the run, its chat requests and its tool messages. */
  async function chat(turns: Parameters<ScriptedModelServer['enqueue']>, logLevel: 'error' | 'info' = 'error') {
    model.enqueue(...turns)
    const before = model.requests.length
    const run = await agent(['chat', '-q', 'use the everything server', '--json'], logLevel)
    assert.equal(run.code, 0, run.stderr)
    const requests = model.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'))
    const tools = new Map<string, string>()
    for (const r of requests) for (const m of r.body.messages) if (m.role === 'tool') tools.set(m.tool_call_id, m.content)
    return { run, requests, tool: (id: string) => tools.get(id) ?? assert.fail(`no result for ${id}: ${JSON.stringify([...tools])}`) }
  }

  before(async () => {
    home = makeTempHome()
    // The scripted model is configured to read images (an unknown model reads text only).
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, model: { input_modalities: ['text', 'image'] } }))
    model = await startScriptedModel()
    const added = await agent(['mcp', 'add', 'everything', '--', process.execPath, EVERYTHING_BIN, 'stdio'])
    assert.equal(added.code, 0, added.stderr)
  })
  after(async () => {
    await model.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('the server sees our capabilities: its roots, sampling, elicitation and task tools are offered', async () => {
    const tools = jsonOf(await agent(['tools', 'list', '--json'])).map((t: any) => t.name)
    for (const name of ['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request', 'simulate-research-query', 'list_resources', 'read_resource']) {
      assert.ok(tools.includes(`mcp__everything__${name}`), `${name} missing from ${tools.join(', ')}`)
    }
  })

  it('roots, progress, tasks, resource links, elicitation, logging and instructions in one run', async () => {
    const { run, requests, tool } = await chat(
      [
        {
          toolCalls: [
            { id: 'roots', name: 'mcp__everything__get-roots-list', arguments: {} },
            { id: 'long', name: 'mcp__everything__trigger-long-running-operation', arguments: { duration: 1, steps: 2 } },
            { id: 'task', name: 'mcp__everything__simulate-research-query', arguments: { topic: 'otters' } },
            { id: 'links', name: 'mcp__everything__get-resource-links', arguments: { count: 1 } },
            { id: 'ask', name: 'mcp__everything__trigger-elicitation-request', arguments: {} },
            { id: 'img', name: 'mcp__everything__get-tiny-image', arguments: {} },
          ],
        },
        { toolCalls: [{ id: 'read', name: 'mcp__everything__read_resource', arguments: { uri: 'demo://resource/dynamic/text/1' } }] },
        { text: 'All done.' },
      ],
      'info',
    )
    assert.equal(jsonOf(run).answer, 'All done.')
    assert.match(tool('roots'), new RegExp(pathToFileURL(home).href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    assert.match(tool('long'), /Long running operation completed/)
    assert.match(tool('task'), /otters/)
    assert.match(tool('links'), /resource link: demo:\/\/resource\/.*read it with mcp__everything__read_resource/)
    assert.match(tool('read'), /Resource 1/)
    assert.match(tool('ask'), /declined/i)
    // The image reaches the model as an image: the tool message keeps the text, a user message after
    // the batch's results carries the picture.
    assert.match(tool('img'), /Here's the image you requested/)
    assert.doesNotMatch(tool('img'), /base64|\[image/)
    const second = requests[1]!.body.messages
    const lastTool = second.map((m: any) => m.role).lastIndexOf('tool')
    const pictures = second[lastTool + 1]
    assert.equal(pictures.role, 'user')
    assert.match(pictures.content[1].image_url.url, /^data:image\/png;base64,iVBORw0KGgo/)
    // The server's instructions are in the system prompt of a request that offers its tools.
    assert.match(requests[0]!.body.messages[0].content, /Instructions of the MCP server "everything"[\s\S]*Everything Server/)
    // Its log notifications reach the agent's log.
    assert.match(run.stderr, /MCP server "everything".*Roots updated/)
  })

  it('the same server over Streamable HTTP and legacy SSE (started by the test): tools and images through chat -q', async () => {
    const http = await startEverythingHttp('streamableHttp')
    const sse = await startEverythingHttp('sse')
    try {
      for (const [name, url] of [['web', http.url], ['old', sse.url]]) {
        const added = await agent(['mcp', 'add', name!, '--url', url!])
        assert.equal(added.code, 0, added.stderr)
      }
      const { run, requests, tool } = await chat([
        {
          toolCalls: [
            { id: 'web-echo', name: 'mcp__web__echo', arguments: { message: 'over streamable http' } },
            { id: 'old-echo', name: 'mcp__old__echo', arguments: { message: 'over sse' } },
            { id: 'web-img', name: 'mcp__web__get-tiny-image', arguments: {} },
          ],
        },
        { text: 'Both answered.' },
      ])
      assert.equal(jsonOf(run).answer, 'Both answered.')
      assert.equal(tool('web-echo'), 'Echo: over streamable http')
      assert.equal(tool('old-echo'), 'Echo: over sse')
      assert.ok(requests[1]!.body.messages.some((m: any) => m.role === 'user' && Array.isArray(m.content) && m.content.some((p: any) => p.type === 'image_url')))
    } finally {
      await agent(['mcp', 'remove', 'web'])
      await agent(['mcp', 'remove', 'old'])
      await http.kill()
      await sse.kill()
    }
  })

  it('sampling: refused when no one can be asked, answered by the agent model when the policy allows it', async () => {
    const refused = await chat([{ toolCalls: [{ id: 's1', name: 'mcp__everything__trigger-sampling-request', arguments: { prompt: 'say hi' } }] }, { text: 'refused' }])
    assert.match(refused.tool('s1'), /did not allow sampling: no one to ask/)
    setApprovals('off')
    const allowed = await chat([{ toolCalls: [{ id: 's2', name: 'mcp__everything__trigger-sampling-request', arguments: { prompt: 'say hi' } }] }, { text: 'sampled words from the model' }, { text: 'done' }])
    assert.match(allowed.tool('s2'), /sampled words from the model/)
    // The sampling request reached the model with the server's system prompt and question.
    const sampling = allowed.requests[1]!.body.messages
    assert.equal(sampling[0].content, 'You are a helpful test server.')
    assert.match(sampling[1].content, /say hi/)
  })
})
