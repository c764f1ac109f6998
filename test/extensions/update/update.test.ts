// `agent update`: the git source against a real upstream repository (check lists the new commits,
// apply fast-forwards and reports them, local changes refuse), the npm source failing gracefully
// offline (one line, bounded), and version ordering.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { makeTempHome } from '../../../sdk/testing/index.ts'
import { applyGit, checkGit, compareVersions, sourceOf } from '../../../extensions/update/sources.ts'
import { runAgent } from '../../helpers/agent-process.ts'

const dirs: string[] = []
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim()

test('git: check lists upstream commits, apply fast-forwards and reports them, local changes refuse', async () => {
  const base = makeTempHome('agent-update-')
  dirs.push(base)
  const origin = join(base, 'origin.git')
  git(base, 'init', '--bare', origin)
  const dev = join(base, 'dev')
  git(base, 'clone', '--quiet', origin, dev)
  writeFileSync(join(dev, 'package.json'), JSON.stringify({ name: 'agent', version: '0.1.0' }))
  git(dev, 'add', '.')
  git(dev, 'commit', '--quiet', '-m', 'first')
  git(dev, 'push', '--quiet', 'origin', 'HEAD:main')
  const install = join(base, 'install')
  git(base, 'clone', '--quiet', '--branch', 'main', origin, install)
  assert.equal(await sourceOf(install), 'git')

  let check = await checkGit(install)
  assert.equal(check.available, false)
  writeFileSync(join(dev, 'feature.txt'), 'new\n')
  git(dev, 'add', '.')
  git(dev, 'commit', '--quiet', '-m', 'add a feature')
  git(dev, 'push', '--quiet', 'origin', 'HEAD:main')

  check = await checkGit(install)
  assert.equal(check.available, true)
  assert.equal(check.changes.length, 1)
  assert.match(check.changes[0]!, /^[0-9a-f]{7,} add a feature$/)

  writeFileSync(join(install, 'package.json'), '{"local": "edit"}')
  await assert.rejects(applyGit(install), /local changes .* would be overwritten/)
  git(install, 'checkout', '--', 'package.json')

  const result = await applyGit(install)
  assert.equal(result.to, check.latest.slice(0, 7))
  assert.match(result.changes[0]!, /add a feature/)
  assert.equal(git(install, 'rev-parse', 'HEAD'), git(dev, 'rev-parse', 'HEAD'))
  assert.equal((await checkGit(install)).available, false)
})

test('npm: offline is one line and exit 1, in bounded time', async () => {
  const home = makeTempHome('agent-update-home-')
  dirs.push(home)
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'config.yaml'), '_config_version: 10\nupdate:\n  source: npm\n')
  const closed = createServer()
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
  const port = (closed.address() as { port: number }).port
  await new Promise<void>((r) => closed.close(() => r()))
  const r = await runAgent(['update', '--check'], { home, env: { npm_config_registry: `http://127.0.0.1:${port}/` }, timeoutMs: 60_000 })
  assert.equal(r.code, 1)
  assert.equal(r.stdout, '')
  assert.match(r.stderr, /^agent: could not check for updates: .+\n$/)
  assert.doesNotMatch(r.stderr, /\n\s+at /)
})

test('versions order by semver precedence', () => {
  assert.equal(compareVersions('0.1.0', '0.2.0'), -1)
  assert.equal(compareVersions('1.10.0', '1.9.9'), 1)
  assert.equal(compareVersions('1.0.0-beta.1', '1.0.0'), -1)
  assert.equal(compareVersions('v2.0.0', '2.0.0'), 0)
})
