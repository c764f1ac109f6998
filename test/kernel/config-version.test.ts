// The config version: a config.yaml the agent writes first is current (no nag), an older one is asked
// only for what a switched-on feature needs, and without a terminal nothing blocks or fails.

import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { FileSettings } from '../../kernel/config/settings.ts'
import { checkConfigVersion, CONFIG_VERSION, ENV_VARS_BY_VERSION, missingSince } from '../../kernel/config/migrate.ts'
import { runAgent } from '../helpers/agent-process.ts'
import { tempDir } from '../helpers/temp.ts'

test('the first write of a new home stamps the current version; later commands do not nag', async (t) => {
  const home = tempDir(t)
  const settings = new FileSettings({ home, env: {} })
  await settings.set('display.theme', 'light')
  assert.equal(new FileSettings({ home, env: {} }).get('_config_version'), CONFIG_VERSION)
  const other = tempDir(t)
  const set = await runAgent(['config', 'set', 'display.show_cost', 'false'], { home: other })
  assert.equal(set.code, 0, set.stderr)
  assert.match(readFileSync(join(other, 'config.yaml'), 'utf8'), new RegExp(`^_config_version: ${CONFIG_VERSION}\n`))
  const next = await runAgent(['extensions', 'list'], { home: other })
  assert.equal(next.code, 0)
  assert.doesNotMatch(next.stderr, /config version/)
})

test('an older config with nothing switched on that needs a new variable: no warning, and migrate stamps it', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), 'display:\n  theme: dark\n')
  const list = await runAgent(['extensions', 'list'], { home })
  assert.equal(list.code, 0)
  assert.doesNotMatch(list.stderr, /config version|TWILIO/)
  const migrate = await runAgent(['config', 'migrate'], { home })
  assert.equal(migrate.code, 0, migrate.stderr)
  assert.match(migrate.stdout, /config is current/)
  assert.equal(new FileSettings({ home, env: {} }).get('_config_version'), CONFIG_VERSION)
})

test('SMS switched on without its credentials: one line without a terminal (exit 0, nothing written), asked in one', async (t) => {
  const home = tempDir(t)
  const original = '_config_version: 8\nplatforms:\n  sms:\n    enabled: true\n'
  writeFileSync(join(home, 'config.yaml'), original)
  for (const env of [{}, { CI: 'true' }]) {
    const migrate = await runAgent(['config', 'migrate'], { home, env })
    assert.equal(migrate.code, 0, migrate.stderr)
    const lines = migrate.stderr.trim().split('\n')
    assert.equal(lines.length, 1, migrate.stderr)
    assert.match(lines[0]!, /config version 8, current is 10.*TWILIO_ACCOUNT_SID \(the sms platform\)/)
    assert.doesNotMatch(lines[0]!, /WEBHOOK_SECRET|API_SERVER_KEY|AGENT_API_TIMEOUT|AGENT_API_MAX_ANSWER_MB/, 'optional variables are not asked for')
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), original, 'nothing written without consent')
  }
  const settings = new FileSettings({ home, env: {} })
  // Ctrl-C at the second question: the first answer is kept, the version is not stamped.
  assert.equal(await checkConfigVersion(settings, { interactive: true, warn: () => {}, answers: ['AC999', new Error('cancelled')] }), false)
  assert.equal(settings.get('_config_version'), 8)
  assert.equal(settings.env('TWILIO_ACCOUNT_SID'), 'AC999')
  await settings.setEnv('TWILIO_ACCOUNT_SID', undefined)
  const answers = ['AC123', '', '+15550001111']
  assert.equal(await checkConfigVersion(settings, { interactive: true, warn: () => {}, answers }), true)
  assert.equal(settings.get('_config_version'), CONFIG_VERSION)
  assert.equal(settings.env('TWILIO_ACCOUNT_SID'), 'AC123')
  assert.equal(settings.env('TWILIO_AUTH_TOKEN'), undefined)
  const cli = await runAgent(['extensions', 'list'], { home, env: {} })
  assert.doesNotMatch(cli.stderr, /config version/)
})

test('WEBHOOK_SECRET is asked for only when a switched-on webhook route has no secret of its own', async (t) => {
  const home = tempDir(t)
  const warnings: string[] = []
  const check = async (yaml: string) => {
    writeFileSync(join(home, 'config.yaml'), yaml)
    warnings.length = 0
    return checkConfigVersion(new FileSettings({ home, env: {} }), { interactive: false, warn: (w) => warnings.push(w) })
  }
  const routes = (secret: string) => `_config_version: 7\nplatforms:\n  webhook:\n    enabled: true\n    extra:\n      routes:\n        push:\n          prompt: hi\n${secret}`
  assert.equal(await check(routes('          secret: own\n')), true)
  assert.equal(await check(routes('')), false)
  assert.match(warnings[0]!, /WEBHOOK_SECRET \(a webhook route without its own secret\)/)
  assert.equal(await check(routes('').replace('enabled: true', 'enabled: false')), true)
})

test('a fresh install (no config.yaml) is not a migration', async (t) => {
  const home = tempDir(t)
  const result = await runAgent(['extensions', 'list'], { home })
  assert.equal(result.code, 0)
  assert.doesNotMatch(result.stderr, /config version/)
})

test('the provider settings are listed with the version that introduced them, as optional: never asked for', (t) => {
  const listed = new Map(Object.entries(ENV_VARS_BY_VERSION).flatMap(([version, notes]) => notes.map((n) => [n.name, { version: Number(version), note: n }] as const)))
  for (const name of ['AGENT_API_TIMEOUT', 'AGENT_API_MAX_ANSWER_MB']) {
    const entry = listed.get(name)
    assert.ok(entry, `${name} is listed`)
    assert.ok(entry.version <= CONFIG_VERSION && entry.version >= 10, `${name} at version ${entry.version}`)
    assert.equal(entry.note.neededBy, undefined, `${name} is optional`)
  }
  assert.match(listed.get('AGENT_API_MAX_ANSWER_MB')!.note.description, /MiB.*default 64/)
  // An old config without them is asked for nothing.
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), '_config_version: 3\n')
  assert.deepEqual(missingSince(new FileSettings({ home, env: {} }), 3), [])
})
