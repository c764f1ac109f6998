// A running agent for capability tests: a temporary AGENT_HOME with capability files, the kernel
// started in gateway mode with the http and capabilities extensions, an inline extension exposing
// app commands, and a recording script standing in for the desktop opener.

import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { defineExtension, exposeToFrontends, HTTP_SERVICE, type CliContext, type CommandDefinition, type ExtensionDefinition, type FrontendInvocation, type HttpService } from 'agent/sdk'
import { createTestKernel, makeTempHome, type TestKernel } from 'agent/sdk/testing'
import { deferrals } from '../../helpers/teardown.ts'

export interface Agent {
  url: string
  home: string
  /** A fake user home ($HOME) with notes/ and .ssh/ inside. */
  userHome: string
  test: TestKernel
  calls: FrontendInvocation[]
  /** Lines the recording launcher wrote (its argv, one per line). */
  opened(): string[]
  writeCapability(name: string, body: unknown): void
  token(window: string, webview?: string, ttl?: number): Promise<string>
  invoke(command: string, args?: unknown, init?: { token?: string; origin?: string; referer?: string }): Promise<{ status: number; body: any }>
}

/** Exposes `greet` (default set), `save_note` and `read_note`, and a `notes` permission set. */
export const notesExtension = (calls: FrontendInvocation[]): ExtensionDefinition => defineExtension({
  name: 'notes-frontend',
  dependsOn: ['capabilities'],
  setup(api) {
    exposeToFrontends(
      api,
      [
        { name: 'greet', default: true, handler: (call) => (calls.push(call), `hello ${String(call.args.name ?? 'nobody')} from ${call.window}`) },
        { name: 'save_note', handler: (call) => (calls.push(call), { saved: true, scope: call.commandScope }) },
        { name: 'read_note', handler: (call) => (calls.push(call), 'a note') },
        { name: 'wipe', handler: (call) => (calls.push(call), 'wiped') },
        { name: 'explode', handler: () => { throw new Error('boom') } },
      ],
      { sets: [{ identifier: 'notes', description: 'read and save notes', permissions: ['allow-read-note', 'allow-save-note'] }] },
    )
  },
})

export async function startAgent(t: TestContext, capabilities: Record<string, unknown>, options: { config?: Record<string, unknown>; extensions?: ExtensionDefinition[] } = {}): Promise<Agent> {
  const home = makeTempHome('agent-cap-')
  const userHome = makeTempHome('agent-cap-user-')
  // The kernel stops before its homes go: its folder watcher and listener are still stopping.
  const defer = deferrals(t)
  defer(() => {
    rmSync(home, { recursive: true, force: true })
    rmSync(userHome, { recursive: true, force: true })
  })
  mkdirSync(join(userHome, 'notes'), { recursive: true })
  mkdirSync(join(userHome, '.ssh'), { recursive: true })
  writeFileSync(join(userHome, 'notes', 'todo.md'), '- test\n')
  writeFileSync(join(userHome, '.ssh', 'id_ed25519'), 'not a key\n')
  const record = join(home, 'opened.txt')
  const launcher = join(home, 'record-open.sh')
  writeFileSync(launcher, `#!/bin/sh\nfor arg in "$@"; do printf '%s\\n' "$arg"; done >> '${record}'\nprintf -- '--\\n' >> '${record}'\n`)
  chmodSync(launcher, 0o755)
  const folder = join(home, 'capabilities')
  mkdirSync(folder, { recursive: true })
  const writeCapability = (name: string, body: unknown) => writeFileSync(join(folder, name), typeof body === 'string' ? body : JSON.stringify(body, null, 2))
  for (const [name, body] of Object.entries(capabilities)) writeCapability(name, body)

  const calls: FrontendInvocation[] = []
  const test = await createTestKernel({
    home,
    builtins: ['http', 'capabilities'],
    extensions: [notesExtension(calls), ...(options.extensions ?? [])],
    env: { API_SERVER_PORT: '0', HOME: userHome },
    config: { capabilities: { opener: { command: [launcher] }, ...(options.config ?? {}) } },
  })
  defer(() => test.close())
  const failed = test.kernel.extensions().filter((e) => e.state === 'failed')
  if (failed.length) throw new Error(`extensions failed: ${failed.map((e) => `${e.name}: ${e.reason}`).join('; ')}`)
  await test.kernel.start('gateway')
  const address = test.kernel.services.require<HttpService>(HTTP_SERVICE).address('api')
  if (!address) throw new Error('the api listener is not running')

  // The registered `agent capabilities token` command, run in-process against this kernel.
  const token = async (window: string, webview?: string, ttl?: number) => {
    const command = test.kernel.registries.commands.get('capabilities') as CommandDefinition
    const out: string[] = []
    const ctx = {
      argv: { _: ['capabilities', 'token'], window, webview, ttl },
      out: (text: string) => void out.push(text),
      err: (text: string) => void out.push(text),
      json: (value: unknown) => void out.push(JSON.stringify(value)),
      settings: test.kernel.settings,
    } as unknown as CliContext
    const code = await command.cli!.subcommands!.token!.run!(ctx)
    if (code) throw new Error(`token failed: ${out.join('')}`)
    return out.join('').trim()
  }

  return {
    url: address.url,
    home,
    userHome,
    test,
    calls,
    opened: () => (existsSync(record) ? readFileSync(record, 'utf8').trimEnd().split('\n') : []),
    writeCapability,
    token,
    async invoke(command, args = {}, init = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (init.token) headers.authorization = `Bearer ${init.token}`
      if (init.origin) headers.origin = init.origin
      if (init.referer) headers.referer = init.referer
      const res = await fetch(`${address.url}/ipc/${encodeURIComponent(command)}`, { method: 'POST', headers, body: JSON.stringify(args) })
      const text = await res.text()
      return { status: res.status, body: text ? JSON.parse(text) : null }
    },
  }
}
