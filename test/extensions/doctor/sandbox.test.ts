// `agent doctor` says whether terminal commands run in the sandbox: ok where bubblewrap runs, a
// warning when `auto` falls back to unconfined, a failure when `bwrap` is required and missing (every
// local command refuses then), info when it is off, and a failure for an unknown AGENT_TERMINAL_SANDBOX.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { runAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { pathWithoutBwrap, sandboxSkip } from '../tools-terminal/helpers.ts'

const env = { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }

async function sandboxLine(t: import('node:test').TestContext, sandbox: string, extraEnv: Record<string, string> = {}) {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, terminal: { sandbox } }))
  const run = await runAgent(['doctor', '--offline', '--json'], { home, env: { ...env, ...extraEnv }, timeoutMs: 60_000 })
  const report = JSON.parse(run.stdout)
  return { run, line: report.checks.find((c: any) => c.subject === 'terminal sandbox') }
}

test('doctor: the sandbox in use is ok', { skip: sandboxSkip }, async (t) => {
  const { line } = await sandboxLine(t, 'auto')
  assert.equal(line.verdict, 'ok')
  assert.match(line.detail, /^bubblewrap \(terminal\.sandbox: auto\): protected places are read-only/)
})

test('doctor: auto without bwrap warns, bwrap without it fails, off is info, an unknown variable fails', async (t) => {
  const PATH = pathWithoutBwrap(t)
  const auto = await sandboxLine(t, 'auto', { PATH })
  assert.equal(auto.line.verdict, 'warn')
  assert.match(auto.line.detail, /not in use: bubblewrap \(bwrap\) is not installed; commands run unconfined/)
  const required = await sandboxLine(t, 'bwrap', { PATH })
  assert.equal(required.line.verdict, 'fail')
  assert.match(required.line.detail, /every local command is refused/)
  assert.equal(required.run.code, 1)
  const off = await sandboxLine(t, 'off')
  assert.equal(off.line.verdict, 'info')
  const unknown = await sandboxLine(t, 'auto', { AGENT_TERMINAL_SANDBOX: 'maybe' })
  assert.equal(unknown.line.verdict, 'fail')
  assert.match(unknown.line.detail, /AGENT_TERMINAL_SANDBOX must be one of auto, bwrap, off/)
})
