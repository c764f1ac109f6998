// `agent doctor` reports an approvals.allowlist entry whose grant key was retired when file-write
// grants became per place (bare `protected-path-write`, `secret-path-write`): it matches nothing,
// and the line says what to write instead. Nothing is rewritten. Per-place keys and command keys
// (look-alikes) are not reported.

import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { runAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'

// --offline: no endpoint is asked; the provider is named only so that the model check passes.
const env = { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }

async function doctor(home: string, allowlist: string[]) {
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, approvals: { allowlist } }))
  const run = await runAgent(['doctor', '--offline', '--json'], { home, env, timeoutMs: 60_000 })
  const report = JSON.parse(run.stdout)
  return { run, report, lines: report.checks.filter((c: any) => c.subject === 'approvals.allowlist') }
}

test('a retired grant key in approvals.allowlist is a warning saying it matches nothing and what to write; config.yaml is left as it was', async (t) => {
  const home = tempDir(t)
  const { run, report, lines } = await doctor(home, ['rm-root', 'protected-path-write', 'secret-path-write', 'protected-path-write:~/.ssh'])
  assert.equal(run.code, 0, run.stderr)
  assert.equal(report.failures, 0)
  assert.deepEqual(lines.map((l: any) => [l.section, l.verdict]), [['Configuration', 'warn'], ['Configuration', 'warn']])
  assert.match(lines[0].detail, /^"protected-path-write" no longer matches anything: file-write grants name their place now, so the writes it allowed are asked again$/)
  assert.match(lines[0].fix, /^replace it with one entry per place you mean, e\.g\. protected-path-write:~\/\.gitconfig .*config\.yaml$/)
  assert.match(lines[1].detail, /^"secret-path-write" no longer matches anything/)
  assert.match(lines[1].fix, /secret-path-write:~\/\.ssh/)
  assert.deepEqual(YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8')).approvals.allowlist, ['rm-root', 'protected-path-write', 'secret-path-write', 'protected-path-write:~/.ssh'])
  // The text report shows the line and its fix.
  const text = await runAgent(['doctor', '--offline'], { home, env, timeoutMs: 60_000 })
  assert.match(text.stdout, /! approvals\.allowlist\s+"protected-path-write" no longer matches anything/)
  assert.match(text.stdout, /→ replace it with one entry per place you mean/)
})

test('look-alikes: per-place keys and command keys are not reported', async (t) => {
  const { run, lines } = await doctor(tempDir(t), ['protected-path-write:~/.gitconfig', 'secret-path-write:~/.ssh', 'agent-home-write:notes.md', 'rm-root'])
  assert.equal(run.code, 0, run.stderr)
  assert.deepEqual(lines, [])
})
