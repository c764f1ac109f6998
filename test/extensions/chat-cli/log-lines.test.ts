// Log lines in the interactive chat (tmux): a successful hot reload says `reloaded "x"`, a failed one
// says why; both are printed above the prompt and stay there through later redraws and turns.

import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { hasTmux, openTerminal } from '../../helpers/tmux.ts'
import { tempDir } from '../../helpers/temp.ts'

const extension = (version: string) => `import { defineExtension } from 'agent/sdk'\nexport default defineExtension({ name: 'hello', version: '${version}', setup() {} })\n`

test('hot reload lines are printed above the prompt and stay', { skip: hasTmux() ? false : 'tmux is not installed' }, async (t) => {
  const model = await startScriptedModel({ models: ['scripted-model'], respond: () => ({ text: 'Answer after the reloads.' }) })
  t.after(() => model.close())
  const home = tempDir(t, 'agent-tui-')
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
  const dir = join(home, 'extensions', 'hello')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.ts'), extension('1.0.0'))
  const term = openTerminal({ home, columns: 100, rows: 24, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url } })
  t.after(() => term.close())
  await term.waitFor(/custom:scripted-model/, 20_000, 'the status bar')

  // The watcher starts with the chat; saves are retried until one is seen (bounded by waitFor).
  let saves = 0
  await term.waitFor(() => {
    if (saves++ % 10 === 0) writeFileSync(join(dir, 'index.ts'), extension(`1.0.${saves}`))
    return /reloaded "hello"/.test(term.capture())
  }, 20_000, 'the reload line')
  writeFileSync(join(dir, 'index.ts'), 'export default {{ broken')
  await term.waitFor(/reload of "hello" failed/, 20_000, 'the failed reload line')

  // A redraw (Ctrl-L) and a whole turn later both lines are still there, above the prompt.
  term.send('C-l')
  term.type('hello')
  term.send('Enter')
  const screen = await term.waitFor(/Answer after the reloads\./, 20_000, 'the answer')
  const rows = screen.split('\n')
  const reloaded = rows.findIndex((r) => r.includes('reloaded "hello"'))
  const failed = rows.findIndex((r) => r.includes('reload of "hello" failed'))
  const prompt = rows.findIndex((r) => r.includes('› hello'))
  assert.ok(reloaded >= 0 && failed > reloaded && prompt > failed, screen)
  assert.doesNotMatch(term.stderr(), /reload/, 'nothing of it went to stderr under the screen')
})
