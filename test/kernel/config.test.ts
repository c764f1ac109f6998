// config.yaml through the yaml document API (comments kept), .env for secrets (0600), broken files
// reported in one line, and the config-version migration.

import assert from 'node:assert/strict'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { FileSettings } from '../../kernel/config/settings.ts'
import { checkConfigVersion, CONFIG_VERSION } from '../../kernel/config/migrate.ts'
import { runAgent } from '../helpers/agent-process.ts'
import { tempDir } from '../helpers/temp.ts'

test('set keeps comments and layout of config.yaml', async (t) => {
  const home = tempDir(t)
  const original = '# my agent settings\nmodel:\n  # the one I like\n  default: small  # cheap\n\ndisplay:\n  show_cost: true\n'
  writeFileSync(join(home, 'config.yaml'), original)
  const settings = new FileSettings({ home, env: {} })
  await settings.set('model.default', 'large')
  await settings.set('terminal.timeout', 30)
  const text = readFileSync(join(home, 'config.yaml'), 'utf8')
  assert.match(text, /^# my agent settings/)
  assert.match(text, /# the one I like\n  default: large +# cheap/)
  assert.match(text, /display:\n {2}show_cost: true/)
  assert.match(text, /terminal:\n {2}timeout: 30/)
  assert.equal(settings.get('terminal.timeout'), 30)
})

test('secrets go to .env with mode 0600; process env wins over .env', async (t) => {
  const home = tempDir(t)
  const settings = new FileSettings({ home, env: { FROM_PROCESS: 'p' } })
  await settings.setEnv('OPENAI_API_KEY', 'sk-test-123456')
  await settings.setEnv('FROM_PROCESS', 'file')
  assert.equal(statSync(join(home, '.env')).mode & 0o777, 0o600)
  assert.equal(settings.env('OPENAI_API_KEY'), 'sk-test-123456')
  assert.equal(settings.env('FROM_PROCESS'), 'p')
  await settings.setEnv('OPENAI_API_KEY', undefined)
  assert.equal(settings.env('OPENAI_API_KEY'), undefined)
  assert.ok(settings.secretValues().length >= 0)
})

test('a broken config.yaml is one line naming the file, exit 2', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), 'model:\n  default: [unclosed\n')
  const result = await runAgent(['extensions', 'list'], { home })
  assert.equal(result.code, 2)
  const lines = result.stderr.trim().split('\n')
  assert.equal(lines.length, 1, result.stderr)
  assert.match(lines[0]!, /^agent: .*config\.yaml: line \d+, column \d+: /)
})

test('agent config set/get keeps comments, routes secrets to .env and masks them', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), '# keep me\n_config_version: 10\nmodel:\n  default: a # inline\n')
  assert.equal((await runAgent(['config', 'set', 'model.default', 'b'], { home })).code, 0)
  assert.equal((await runAgent(['config', 'set', 'agent.max_turns', '12'], { home })).code, 0)
  const set = await runAgent(['config', 'set', 'OPENAI_API_KEY', 'sk-secret-value-1'], { home })
  assert.match(set.stdout, /\.env/)
  const text = readFileSync(join(home, 'config.yaml'), 'utf8')
  assert.match(text, /# keep me/)
  assert.match(text, /default: b # inline/)
  assert.doesNotMatch(text, /sk-secret/)
  const get = await runAgent(['config', 'get', 'agent.max_turns', '--json'], { home })
  assert.equal(JSON.parse(get.stdout), 12)
  const secret = await runAgent(['config', 'get', 'OPENAI_API_KEY'], { home })
  assert.equal(secret.stdout.trim(), '***')
  const shown = await runAgent(['config', 'show', '--json'], { home })
  assert.equal(JSON.parse(shown.stdout).model.default, 'b')
})

test('migration: without a TTY it only warns; interactively it asks and stamps the version', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), '_config_version: 8\n')
  const settings = new FileSettings({ home, env: {} })
  const warnings: string[] = []
  assert.equal(await checkConfigVersion(settings, { interactive: false, warn: (w) => warnings.push(w) }), false)
  assert.match(warnings[0]!, /config version 8, current is 10.*TWILIO_ACCOUNT_SID/)
  assert.equal(settings.get('_config_version'), 8, 'nothing written without consent')
  const answers = ['AC123', '', '+15550001111', '']
  assert.equal(await checkConfigVersion(settings, { interactive: true, warn: () => {}, answers }), true)
  assert.equal(settings.get('_config_version'), CONFIG_VERSION)
  assert.equal(settings.env('TWILIO_ACCOUNT_SID'), 'AC123')
  assert.equal(settings.env('TWILIO_AUTH_TOKEN'), undefined)
  const cli = await runAgent(['extensions', 'list'], { home, env: {} })
  assert.doesNotMatch(cli.stderr, /config version/)
})

test('a fresh install (no config.yaml) is not a migration', async (t) => {
  const home = tempDir(t)
  const result = await runAgent(['extensions', 'list'], { home })
  assert.equal(result.code, 0)
  assert.doesNotMatch(result.stderr, /config version/)
})

test('a project config (found with cosmiconfig in the working directory) overlays reads; writes go to the user config', async (t) => {
  const home = tempDir(t)
  const project = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), 'model:\n  default: user-model\ndisplay:\n  show_cost: true\n')
  writeFileSync(join(project, '.agentrc.yaml'), 'model:\n  default: project-model\n')
  const settings = new FileSettings({ home, env: {}, projectDir: project })
  assert.equal(settings.projectConfigPath, join(project, '.agentrc.yaml'))
  assert.equal(settings.get('model.default'), 'project-model')
  assert.equal(settings.get('display.show_cost'), true, 'keys the project does not set come from the user config')
  await settings.set('display.show_cost', false)
  assert.doesNotMatch(readFileSync(join(project, '.agentrc.yaml'), 'utf8'), /show_cost/)
  assert.equal(settings.getOwn('model.default'), 'user-model')
  const broken = tempDir(t)
  writeFileSync(join(broken, '.agentrc.yaml'), 'model: [oops\n')
  assert.throws(() => new FileSettings({ home, env: {}, projectDir: broken }), /\.agentrc\.yaml: line \d+/)
})

test('config-only keys are never read from the environment', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), 'compression:\n  summary_model: from-config\n')
  const settings = new FileSettings({ home, env: { COMPRESSION_SUMMARY_MODEL: 'from-env', FALLBACK_MODEL: 'env-model', AGENT_FALLBACK_MODEL: 'env-model' } })
  assert.equal(settings.get('compression.summary_model'), 'from-config')
  assert.equal(settings.get('fallback_model'), undefined)
})
