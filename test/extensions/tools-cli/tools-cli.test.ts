// `agent tools`: list/enable/disable against config.yaml, and the backend wizard in a real terminal
// over a user extension whose tool declares `backends` (the contract web tools use).

import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, test } from 'node:test'
import YAML from 'yaml'
import { makeTempHome } from '../../../sdk/testing/index.ts'
import { runAgent } from '../../helpers/agent-process.ts'
import { hasTmux, openTerminal, type Terminal } from '../../helpers/tmux.ts'

const homes: string[] = []
const terminals: Terminal[] = []
after(() => {
  terminals.forEach((t) => t.close())
  homes.forEach((h) => rmSync(h, { recursive: true, force: true }))
})

const FAKE = `
import { defineExtension } from 'agent/sdk'
export default defineExtension({
  name: 'fake-web',
  setup(api) {
    api.tools.register({
      name: 'fake_search',
      toolset: 'fakeweb',
      description: 'search',
      parameters: { type: 'object', properties: {} },
      backends: { setting: 'fakeweb.backend', label: 'Fake web search', options: [
        { value: 'alpha', envKeys: ['ALPHA_API_KEY'], note: 'crawl supported' },
        { value: 'beta', envKeys: ['BETA_API_KEY'] },
      ] },
      execute: () => 'ok',
    })
  },
})
`

function home(): string {
  const dir = makeTempHome('agent-tools-')
  homes.push(dir)
  // The built-in web and voice tools ask their own questions first; this test is about the contract.
  writeFileSync(join(dir, 'config.yaml'), '_config_version: 10\nextensions:\n  disabled: [tools-web, stt, tts]\n')
  mkdirSync(join(dir, 'extensions', 'fake-web'), { recursive: true })
  writeFileSync(join(dir, 'extensions', 'fake-web', 'index.ts'), FAKE)
  return dir
}
const config = (dir: string) => YAML.parse(readFileSync(join(dir, 'config.yaml'), 'utf8'))
const row = (stdout: string, name: string) => (JSON.parse(stdout) as any[]).find((r) => r.name === name)

test('list, disable and enable persist in config.yaml; unknown names change nothing', async () => {
  const dir = home()
  let r = await runAgent(['tools', 'list', '--json'], { home: dir, timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  assert.deepEqual(row(r.stdout, 'fake_search'), { name: 'fake_search', toolset: 'fakeweb', owner: 'fake-web', enabled: true, available: true })
  r = await runAgent(['tools', 'disable', 'fakeweb'], { home: dir, timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  assert.deepEqual(config(dir).tools.disabled, ['fakeweb'])
  assert.equal(row((await runAgent(['tools', 'list', '--json'], { home: dir, timeoutMs: 60_000 })).stdout, 'fake_search').enabled, false)
  const before = readFileSync(join(dir, 'config.yaml'), 'utf8')
  r = await runAgent(['tools', 'enable', 'nosuch'], { home: dir, timeoutMs: 60_000 })
  assert.equal(r.code, 2)
  assert.match(r.stderr, /unknown tool or toolset: nosuch/)
  assert.equal(readFileSync(join(dir, 'config.yaml'), 'utf8'), before)
  r = await runAgent(['tools', 'enable', 'fakeweb'], { home: dir, timeoutMs: 60_000 })
  assert.equal(r.code, 0)
  assert.equal(config(dir).tools.disabled, undefined)
  assert.equal(row((await runAgent(['tools', 'list', '--json'], { home: dir, timeoutMs: 60_000 })).stdout, 'fake_search').enabled, true)
})

test('without a terminal agent tools prints the choices and the commands', async () => {
  const r = await runAgent(['tools'], { home: home(), timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /Fake web search \(fakeweb\.backend\): not set/)
  assert.match(r.stdout, /- alpha: needs ALPHA_API_KEY; crawl supported/)
  assert.match(r.stdout, /set with: agent config set fakeweb\.backend <alpha\|beta>/)
})

test('the wizard saves the backend and its key', { skip: !hasTmux() && 'tmux is not installed' }, async () => {
  const dir = home()
  const t = openTerminal({ home: dir, args: ['tools'], columns: 100, rows: 30 })
  terminals.push(t)
  await t.waitFor(/Fake web search backend/, 20_000, 'the backend question')
  t.send('Down')
  await t.waitFor(/❯\s+beta/, 20_000, 'beta highlighted')
  t.send('Enter')
  await t.waitFor(/BETA_API_KEY/, 20_000, 'the key question')
  t.type('beta-secret')
  t.send('Enter')
  await t.waitFor(/Toolsets to enable/, 20_000, 'the toolsets question')
  t.send('Enter')
  const end = await t.waitFor(/\[agent exited \d+\]/, 20_000, 'the end')
  assert.match(end, /\[agent exited 0\]/, t.stderr())
  assert.match(end, /saved fakeweb\.backend and BETA_API_KEY \(to \.env\)/)
  assert.equal(config(dir).fakeweb.backend, 'beta')
  assert.match(readFileSync(join(dir, '.env'), 'utf8'), /^BETA_API_KEY=beta-secret$/m)
  assert.equal(statSync(join(dir, '.env')).mode & 0o777, 0o600)
  assert.doesNotMatch(end, /beta-secret/, 'the key is never echoed')
})
