// What `agent` prints when a command fails carries no known secret: the error line (and the stack
// AGENT_DEBUG adds) is cleared of the settings' secrets, and when the kernel could not even start
// (a broken config.yaml) of the environment's and .env's. An ordinary error line is unchanged.

import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { runAgent } from '../helpers/agent-process.ts'
import { tempDir } from '../helpers/temp.ts'

const TOKEN = 'dep-kernel-token-2c4e6a8b0d1f3e5a'

function homeWithFailingCommand(t: TestContext): string {
  const home = tempDir(t)
  mkdirSync(join(home, 'extensions', 'failer'), { recursive: true })
  writeFileSync(join(home, 'extensions', 'failer', 'index.ts'), `
import { AgentError, defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'failer', setup(api) {
  api.commands.register({ name: 'fail', category: 'Demo', description: 'Fails', cli: {
    options: { plain: { type: 'boolean', describe: 'An ordinary failure' } },
    run(ctx) {
      if (ctx.argv.plain) throw new AgentError('E_PROVIDER', 'the deploy endpoint said: try again later')
      throw new AgentError('E_PROVIDER', 'the deploy endpoint said: token ' + ctx.settings.env('DEPLOY_TOKEN') + ' was revoked\\nsee ' + ctx.settings.env('DEPLOY_TOKEN'))
    },
  } })
} })`)
  writeFileSync(join(home, '.env'), `DEPLOY_TOKEN=${TOKEN}\n`, { mode: 0o600 })
  return home
}

test('a failing command prints its line without known secrets, also in the AGENT_DEBUG stack', async (t) => {
  const home = homeWithFailingCommand(t)
  const run = await runAgent(['fail'], { home })
  assert.equal(run.code, 1)
  assert.equal(run.stderr, 'agent: the deploy endpoint said: token *** was revoked\n')
  const debug = await runAgent(['fail'], { home, env: { AGENT_DEBUG: '1' } })
  assert.equal(debug.code, 1)
  assert.ok(!debug.stderr.includes(TOKEN), debug.stderr)
  assert.match(debug.stderr, /see \*\*\*/)
})

test('an ordinary failure line is printed unchanged', async (t) => {
  const home = homeWithFailingCommand(t)
  const run = await runAgent(['fail', '--plain'], { home })
  assert.equal(run.code, 1)
  assert.equal(run.stderr, 'agent: the deploy endpoint said: try again later\n')
})

test('the kernel cannot start: the environment’s and .env’s secrets are still cleared from the line', async (t) => {
  // A broken config.yaml fails before there are settings; its line names the home folder, whose
  // name here doubles as a secret value (one in the environment, one in .env).
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), 'model:\n  default: x: y\n')
  const name = basename(home)
  const plain = await runAgent(['sessions', 'list'], { home })
  assert.equal(plain.code, 2)
  assert.ok(plain.stderr.startsWith(`agent: ${join(home, 'config.yaml')}:2:`), plain.stderr)

  const fromEnv = await runAgent(['sessions', 'list'], { home, env: { BACKUP_TOKEN: name } })
  assert.equal(fromEnv.code, 2)
  assert.ok(!fromEnv.stderr.includes(name), fromEnv.stderr)
  assert.match(fromEnv.stderr, /^agent: .*\*\*\*.*config\.yaml:2:/)

  writeFileSync(join(home, '.env'), `BACKUP_TOKEN=${name}\n`)
  const fromDotenv = await runAgent(['sessions', 'list'], { home, env: { AGENT_DEBUG: '1' } })
  assert.equal(fromDotenv.code, 2)
  assert.ok(!fromDotenv.stderr.includes(name), fromDotenv.stderr)
})
