// Plugins in a running agent: `agent plugins update|install|remove` in another process hot-swap, add
// and drop the plugin in the running kernel; `/plugins` lists them.

import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { ToolDefinition } from 'agent/sdk'
import { createTestKernel, type TestKernel } from 'agent/sdk/testing'
import { pluginCopy, pluginsWorld, renamed, type PluginsWorld } from './helpers.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('plugins in a running agent', () => {
  let w: PluginsWorld
  let t: TestKernel
  const tool = (name: string) => t.kernel.registries.tools.get(name) as ToolDefinition | undefined
  const callHello = () => tool('hello_plugin')?.execute({ input: {}, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: w.home } })

  async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (await check()) return
      await sleep(50)
    }
    throw new Error(`timed out waiting for ${what}`)
  }

  before(async () => {
    w = pluginsWorld()
    pluginCopy(w.work, 'hello')
    const install = await w.agent('plugins', 'install', './hello')
    assert.equal(install.code, 0, install.stderr)
    t = await createTestKernel({ home: w.home, builtins: ['plugins-cli'] })
    await t.kernel.start('chat')
  })
  after(async () => {
    await t.close()
    w.cleanup()
  })

  it('an update from another process hot-swaps the running plugin', async () => {
    assert.equal(await callHello(), 'hello v1')
    const code = readFileSync(join(w.work, 'hello', 'index.ts'), 'utf8').replace("'hello v1'", "'hello v2'").replace("version: '1.0.0'", "version: '1.1.0'")
    writeFileSync(join(w.work, 'hello', 'index.ts'), code)
    const pkg = JSON.parse(readFileSync(join(w.work, 'hello', 'package.json'), 'utf8'))
    writeFileSync(join(w.work, 'hello', 'package.json'), JSON.stringify({ ...pkg, version: '1.1.0' }))
    const run = await w.agent('plugins', 'update', 'hello-plugin')
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /updated agent-plugin-hello 1\.0\.0 → 1\.1\.0/)
    await until('the new version to answer', async () => (await callHello()) === 'hello v2')
    assert.equal(t.kernel.extensions().find((e) => e.name === 'hello-plugin')?.version, '1.1.0')
    const again = await w.agent('plugins', 'update')
    assert.match(again.stdout, /agent-plugin-hello@1\.1\.0 is up to date/)
  })

  it('a plugin installed or removed by another process comes and goes', async () => {
    pluginCopy(w.work, 'second', renamed('agent-plugin-second', 'second-plugin', 'second_tool'))
    assert.equal((await w.agent('plugins', 'install', './second')).code, 0)
    await until('the new plugin', () => tool('second_tool') !== undefined)
    const removed = await w.agent('plugins', 'remove', 'agent-plugin-second')
    assert.equal(removed.code, 0, removed.stderr)
    await until('the removal', () => tool('second_tool') === undefined)
    assert.equal(t.kernel.extensions().some((e) => e.name === 'second-plugin'), false)
  })

  it('/plugins lists what is installed', async () => {
    const replies: string[] = []
    await t.kernel.registries.commands.get('plugins')!.slash!({ args: '', invokedAs: 'plugins', surface: 'cli', reply: (text: string) => void replies.push(text) })
    assert.match(replies.join('\n'), /agent-plugin-hello@1\.1\.0 {2}\[path .*\] {2}hello-plugin: loaded/)
  })
})
