// Service control scoped by AGENT_HOME: two homes run two background gateways side by side with
// distinct PID files and service names; a stale PID file does not block start; stop ends each one;
// install writes a user unit named after the home.

import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { runAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

test('two AGENT_HOMEs run two gateways side by side', async (t) => {
  const config = { _config_version: 10, platforms: { webhook: { enabled: true, extra: { routes: { ci: { secret: 'x' } } } } } }
  const homes = [tempDir(t, 'agent-gw-a-'), tempDir(t, 'agent-gw-b-')]
  const xdg = tempDir(t, 'agent-xdg-')
  const env = { WEBHOOK_PORT: '0', AGENT_GATEWAY_SERVICE_MANAGER: 'process', XDG_CONFIG_HOME: xdg }
  for (const home of homes) writeFileSync(join(home, 'config.yaml'), YAML.stringify(config))
  // A stale PID file (a pid that is not running) must not block the start.
  writeFileSync(join(homes[0]!, 'gateway.pid'), JSON.stringify({ pid: 2 ** 22 - 7, kind: 'agent-gateway', home: homes[0], startedAt: 0 }))
  t.after(async () => {
    for (const home of homes) await runAgent(['gateway', 'stop'], { home, env, timeoutMs: 30_000 }).catch(() => undefined)
  })

  const statuses = []
  for (const home of homes) {
    const started = await runAgent(['gateway', 'start', '--json'], { home, env, timeoutMs: 60_000 })
    assert.equal(started.code, 0, started.stderr)
    const status = await runAgent(['gateway', 'status', '--json'], { home, env })
    assert.equal(status.code, 0, status.stderr)
    statuses.push(JSON.parse(status.stdout))
  }
  const [a, b] = statuses
  assert.ok(a.running && b.running)
  assert.notEqual(a.pid, b.pid)
  assert.ok(alive(a.pid) && alive(b.pid))
  assert.equal(a.pid_file, join(homes[0]!, 'gateway.pid'), 'snake_case like every --json')
  assert.equal(b.pid_file, join(homes[1]!, 'gateway.pid'))
  assert.match(a.service_name, /^agent-gateway-[0-9a-f]{8}$/)
  assert.notEqual(a.service_name, b.service_name)
  assert.equal(JSON.parse(readFileSync(a.pid_file, 'utf8')).pid, a.pid)
  assert.deepEqual(Object.keys(a).filter((k) => /[a-z][A-Z]/.test(k)), [])
  assert.ok(a.adapters.some((x: { name: string; state: string }) => x.name === 'webhook' && x.state === 'running'))

  // A second start of the same home is refused while it runs.
  const again = await runAgent(['gateway', 'start'], { home: homes[0]!, env })
  assert.equal(again.code, 1)
  assert.match(again.stderr, /already running \(pid \d+\)/)

  // install writes a unit named after the home (no user manager here: the note says so).
  const installed = await runAgent(['gateway', 'install', '--json'], { home: homes[1]!, env })
  assert.equal(installed.code, 0, installed.stderr)
  const unit = JSON.parse(installed.stdout)
  assert.equal(unit.unit_file, join(xdg, 'systemd', 'user', `${b.service_name}.service`))
  assert.match(readFileSync(unit.unit_file, 'utf8'), new RegExp(`Environment=AGENT_HOME=${homes[1]}`))
  assert.equal((await runAgent(['gateway', 'uninstall'], { home: homes[1]!, env })).code, 0)
  assert.ok(!existsSync(unit.unit_file))

  for (const [i, home] of homes.entries()) {
    const stopped = await runAgent(['gateway', 'stop', '--json'], { home, env, timeoutMs: 30_000 })
    assert.equal(stopped.code, 0, stopped.stderr)
    assert.deepEqual(JSON.parse(stopped.stdout), { stopped: true })
    assert.ok(!alive(statuses[i].pid))
    assert.ok(!existsSync(join(home, 'gateway.pid')))
  }
})
