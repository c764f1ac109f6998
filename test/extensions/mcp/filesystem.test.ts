// The reference `server-filesystem` started with no directory at all: it takes its allowed
// directories from the client's roots, so a working `agent chat -q` read proves the roots we
// declare (the workspace) end to end; a file outside the workspace stays refused.

import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'

const require = createRequire(import.meta.url)
const FILESYSTEM_BIN = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js')

describe('server-filesystem (roots from the agent) through agent chat -q', () => {
  let home: string
  let outside: string
  let model: ScriptedModelServer

  before(async () => {
    home = realpathSync(makeTempHome())
    outside = mkdtempSync(join(tmpdir(), 'agent-outside-'))
    writeFileSync(join(home, 'notes.txt'), 'the workspace notes\n')
    writeFileSync(join(outside, 'secret.txt'), 'not for the server\n')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, mcp_servers: { fs: { command: process.execPath, args: [FILESYSTEM_BIN] } } }))
    model = await startScriptedModel()
  })
  after(async () => {
    await model.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })

  it('reads a workspace file, and is refused one outside the workspace', async () => {
    const env = { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }
    const tested = await runAgent(['mcp', 'test', 'fs'], { home, env, logLevel: 'error' })
    assert.equal(tested.code, 0, tested.stderr)
    // The server applies the roots it asks for after `initialized`, asynchronously: a call sent
    // at once can still see none (the server's race, not ours). The scripted model asks again,
    // a bounded number of times, until the roots show, then reads inside and outside.
    const rootsShown = (content: unknown) => typeof content === 'string' && content.includes(home)
    let asked = 0
    model.respond((body) => {
      const messages: any[] = body.messages
      const last = messages[messages.length - 1]
      if (last?.role === 'tool' && last.tool_call_id.startsWith('dirs') && !rootsShown(last.content) && asked < 20) {
        return { toolCalls: [{ id: `dirs${++asked}`, name: 'mcp__fs__list_allowed_directories', arguments: {} }], delayMs: 100 }
      }
      if (last?.role === 'tool' && last.tool_call_id.startsWith('dirs')) {
        return {
          toolCalls: [
            { id: 'in', name: 'mcp__fs__read_text_file', arguments: { path: join(home, 'notes.txt') } },
            { id: 'out', name: 'mcp__fs__read_text_file', arguments: { path: join(outside, 'secret.txt') } },
          ],
        }
      }
      if (last?.role === 'tool') return { text: 'Read it.' }
      return { toolCalls: [{ id: 'dirs0', name: 'mcp__fs__list_allowed_directories', arguments: {} }] }
    })
    const before = model.requests.length
    const run = await runAgent(['chat', '-q', 'read my notes', '--json'], { home, env, logLevel: 'error', timeoutMs: 60_000 })
    assert.equal(run.code, 0, run.stderr)
    assert.equal(jsonOf(run).answer, 'Read it.')
    const messages = model.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions')).at(-1)!.body.messages
    const result = (id: string) => messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id).content as string
    assert.match(result(`dirs${asked}`), new RegExp(home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    assert.equal(result('in').trim(), 'the workspace notes')
    assert.match(result('out'), /Access denied|outside allowed directories/i)
    assert.doesNotMatch(result('out'), /not for the server/)
  })
})
