// Fail closed: tools an extension declares in `guards.tools` refuse, with a one-line reason naming the
// guard and the fix, whenever that extension is not loaded; other tools and a loaded guard run on.

import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { createKernel, type Kernel } from '../../kernel/index.ts'
import type { ExtensionDefinition, ToolCallEvent } from '../../sdk/index.ts'
import { hermeticEnv } from '../../sdk/testing/index.ts'
import { tempDir } from '../helpers/temp.ts'

const guardSource = (setupBody: string) => `
import { defineExtension } from 'agent/sdk'
export default defineExtension({
  name: 'shield',
  configKey: 'shield',
  guards: { tools: ['danger'] },
  config: { type: 'object', properties: { mode: { enum: ['on', 'off'], default: 'on' } }, additionalProperties: false },
  setup(api) { ${setupBody} },
})
`

const tools: ExtensionDefinition = {
  name: 'tool-box',
  setup(api) {
    api.tools.register({ name: 'danger', description: 'd', parameters: {}, execute: () => 'ran' })
    api.tools.register({ name: 'harmless', description: 'h', parameters: {}, execute: () => 'ran' })
  },
}

const event = (tool: string): ToolCallEvent => ({ tool, toolset: 'x', callId: 'c1', input: {}, session: { id: 's', cwd: '.' }, modifiesFiles: false })

async function kernelWith(t: import('node:test').TestContext, options: { config?: Record<string, unknown>; source?: string; setupTimeoutMs?: number; inline?: ExtensionDefinition[] }) {
  const home = tempDir(t)
  if (options.config) writeFileSync(join(home, 'config.yaml'), YAML.stringify(options.config))
  if (options.source !== undefined) {
    mkdirSync(join(home, 'extensions', 'shield'), { recursive: true })
    writeFileSync(join(home, 'extensions', 'shield', 'index.ts'), options.source)
  }
  const kernel = createKernel({
    home,
    env: hermeticEnv({}, home),
    cwd: home,
    builtinsDir: false,
    logLevel: 'silent',
    setupTimeoutMs: options.setupTimeoutMs,
    inline: [tools, ...(options.inline ?? [])].map((definition) => ({ definition })),
  })
  t.after(() => kernel.shutdown())
  await kernel.load()
  return { kernel, home, dir: join(home, 'extensions', 'shield') }
}

async function assertRefused(kernel: Kernel, pattern: RegExp): Promise<string> {
  const verdict = await kernel.hooks.beforeToolCall.promise(event('danger'))
  assert.equal(verdict?.block, true, 'the guarded tool is refused')
  assert.match(verdict!.reason, /^refused: the shield guard is not loaded \(/)
  assert.match(verdict!.reason, pattern)
  assert.doesNotMatch(verdict!.reason, /\n/)
  assert.equal(await kernel.hooks.beforeToolCall.promise(event('harmless')), undefined, 'a tool it does not guard runs on')
  return verdict!.reason
}

test('a guard with a valid config is loaded and lets its tools through the kernel', async (t) => {
  const { kernel } = await kernelWith(t, { source: guardSource(''), config: { shield: { mode: 'off' } } })
  assert.equal(kernel.extensions().find((e) => e.name === 'shield')!.state, 'loaded')
  assert.equal(await kernel.hooks.beforeToolCall.promise(event('danger')), undefined)
  assert.deepEqual(kernel.extensions().find((e) => e.name === 'shield')!.guards, ['danger'])
})

test('an invalid value or a mistyped key of the guard config refuses its tools, naming the key and the fix', async (t) => {
  const bad = await kernelWith(t, { source: guardSource(''), config: { shield: { mode: 'bogus' } } })
  const reason = await assertRefused(bad.kernel, /shield\.mode: must be one of on, off \(got "bogus"\).*; fix the setting and run agent doctor/)
  assert.ok(reason.includes(join(bad.home, 'config.yaml')), 'names the file')
  const typo = await kernelWith(t, { source: guardSource(''), config: { shield: { mdoe: 'on' } } })
  await assertRefused(typo.kernel, /shield\.mdoe: unknown key \(did you mean "mode"\?\)/)
})

test('a guard whose setup throws or times out refuses its tools', async (t) => {
  const throws = await kernelWith(t, { source: guardSource(`throw new Error('no rules file')`) })
  await assertRefused(throws.kernel, /no rules file\); run agent doctor/)
  const slow = await kernelWith(t, { source: guardSource(`return new Promise(() => {})`), setupTimeoutMs: 100 })
  await assertRefused(slow.kernel, /did not finish within 100 ms/)
})

test('a guard disabled through extensions.disabled refuses its tools and says how to enable it', async (t) => {
  const { kernel } = await kernelWith(t, { source: guardSource(''), config: { extensions: { disabled: ['shield'] } } })
  assert.equal(kernel.extensions().find((e) => e.name === 'shield')!.state, 'disabled')
  await assertRefused(kernel, /disabled in extensions\.disabled\); remove "shield" from extensions\.disabled in /)
})

test('an unloaded guard refuses its tools', async (t) => {
  const { kernel } = await kernelWith(t, { source: guardSource('') })
  assert.equal(await kernel.hooks.beforeToolCall.promise(event('danger')), undefined)
  await kernel.unload('shield')
  await assertRefused(kernel, /\(unloaded\); restart the agent/)
})

test('a failed hot reload that leaves no version keeps refusing; a fixed one lets the tools through', async (t) => {
  const { kernel, dir } = await kernelWith(t, { source: guardSource(`throw new Error('first try')`) })
  await assertRefused(kernel, /first try/)
  writeFileSync(join(dir, 'index.ts'), 'export default {{ broken')
  assert.equal((await kernel.reload('shield')).ok, false)
  await assertRefused(kernel, /index\.ts:1:\d+/)
  writeFileSync(join(dir, 'index.ts'), guardSource(''))
  assert.equal((await kernel.reload('shield')).ok, true)
  assert.equal(await kernel.hooks.beforeToolCall.promise(event('danger')), undefined)
})

test('a loaded guard that is hot-reloaded into a broken version keeps guarding (the old version runs on)', async (t) => {
  const { kernel, dir } = await kernelWith(t, { source: guardSource(`api.hooks.beforeToolCall.tap((e) => (e.tool === 'danger' ? { block: true, reason: 'shield says no' } : undefined))`) })
  writeFileSync(join(dir, 'index.ts'), 'export default {{ broken')
  assert.equal((await kernel.reload('shield')).ok, false)
  assert.equal((await kernel.hooks.beforeToolCall.promise(event('danger')))?.reason, 'shield says no')
})

test('a malformed guards declaration is the extension\'s own load error', async (t) => {
  const bad: ExtensionDefinition = { name: 'odd-guard', guards: { tools: 'danger' as never }, setup() {} }
  const { kernel } = await kernelWith(t, { inline: [bad] })
  const info = kernel.extensions().find((e) => e.name === 'odd-guard')!
  assert.equal(info.state, 'failed')
  assert.match(info.reason!, /"guards\.tools" of "odd-guard" must be a list of tool names/)
})

test('config set is checked against the owning schema: bad values and unknown keys are refused, good ones pass', async (t) => {
  const { kernel } = await kernelWith(t, { source: guardSource(''), config: { shield: { mode: 'on' } } })
  const check = kernel.services.get<{ checkSetting(path: string, value: unknown): string[] }>('extensions')!.checkSetting
  assert.deepEqual(check('shield.mode', 'off'), [])
  assert.match(check('shield.mode', 'bogus').join(), /shield\.mode: must be one of on, off/)
  assert.match(check('shield.mdoe', 'on').join(), /shield\.mdoe: unknown key \(did you mean "mode"\?\)/)
  assert.match(check('shield', 'on').join(), /shield: must be a mapping/)
  assert.deepEqual(check('shield', { mode: 'off' }), [])
  assert.deepEqual(check('unowned.key', 'anything'), [])
  // The kernel's own setting: a string would be ignored (nothing disabled), so it is refused.
  assert.match(check('extensions.disabled', 'shield').join(), /extensions\.disabled: must be a list \(got "shield"\)/)
  assert.deepEqual(check('extensions.disabled', ['shield']), [])
  assert.deepEqual(check('extensions.disabled', undefined), [])
  assert.match(check('extensions', { disabled: 'shield' }).join(), /extensions\.disabled: must be a list/)
})
