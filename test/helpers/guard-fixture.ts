// One fixture for the end-to-end guard tests: the scripted model, a temporary agent home with its
// config.yaml, and a project folder holding `victim/keep.txt` that a refused command must leave.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import YAML from 'yaml'
import { startScriptedModel } from 'agent/sdk/testing'
import { tempDir } from './temp.ts'

export async function guardFixture(t: TestContext, config: Record<string, unknown> = {}) {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const home = tempDir(t, 'agent-home-')
  const project = tempDir(t, 'agent-project-')
  const victim = join(project, 'victim')
  mkdirSync(victim)
  writeFileSync(join(victim, 'keep.txt'), 'precious\n')
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, ...config }))
  return { model, home, project, victim, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url } }
}
