// Project-local extensions (<cwd>/.agent/extensions) load only with an explicit opt-in: the
// --project-extensions flag, `extensions.project: true` in the user's config.yaml, or
// AGENT_PROJECT_EXTENSIONS=true — never because a project folder contains them.

import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome } from 'agent/sdk/testing'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'

describe('project-local extensions need an explicit opt-in', () => {
  let home: string
  let project: string
  const tools = async (args: string[], env: Record<string, string> = {}) =>
    jsonOf(await runAgent(['tools', 'list', '--json', ...args], { home, cwd: project, env, logLevel: 'error' }))
      .map((t: any) => t.name)
      .filter((n: string) => n === 'project_tool')

  before(() => {
    home = makeTempHome()
    project = mkdtempSync(join(tmpdir(), 'agent-project-'))
    mkdirSync(join(project, '.agent', 'extensions', 'project-ext'), { recursive: true })
    writeFileSync(
      join(project, '.agent', 'extensions', 'project-ext', 'index.ts'),
      `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'project-ext', setup(api) {
  api.tools.register({ name: 'project_tool', description: 'from the project', parameters: { type: 'object' }, execute: () => 'project' })
} })
`,
    )
  })
  after(() => {
    rmSync(home, { recursive: true, force: true })
    rmSync(project, { recursive: true, force: true })
  })

  it('is not loaded by default, even from inside the project, nor when the project opts itself in', async () => {
    assert.deepEqual(await tools([]), [])
    writeFileSync(join(project, '.agent', 'config.yaml'), YAML.stringify({ extensions: { project: true } }))
    try {
      assert.deepEqual(await tools([]), [])
    } finally {
      rmSync(join(project, '.agent', 'config.yaml'))
    }
  })

  it('is loaded with --project-extensions or AGENT_PROJECT_EXTENSIONS=true', async () => {
    assert.deepEqual(await tools(['--project-extensions']), ['project_tool'])
    assert.deepEqual(await tools([], { AGENT_PROJECT_EXTENSIONS: 'true' }), ['project_tool'])
  })

  it('is loaded with extensions.project: true in the user config, and shown with source "project"', async () => {
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, extensions: { project: true } }))
    assert.deepEqual(await tools([]), ['project_tool'])
    const list = jsonOf(await runAgent(['extensions', 'list', '--json'], { home, cwd: project, logLevel: 'error' }))
    assert.deepEqual(list.filter((e: any) => e.name === 'project-ext').map((e: any) => [e.source, e.state]), [['project', 'loaded']])
  })
})
