// The gateway as a user service, scoped by AGENT_HOME so several installs run side by side: the PID
// file lives in <agent_home>, the service name carries a hash of the home path. A systemd --user unit
// when a user manager is reachable, else a detached background process. A stale PID file (its
// process is gone, or is not a gateway) never blocks a start.

import { spawn, spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AgentError, shortHash, type Settings } from 'agent/sdk'

export const PID_KIND = 'agent-gateway'

export interface PidRecord {
  pid: number
  kind: string
  home: string
  startedAt: number
}

export const pidFilePath = (home: string) => join(home, 'gateway.pid')
export const stateFilePath = (home: string) => join(home, 'gateway_state.json')
export const logFilePath = (home: string) => join(home, 'logs', 'gateway.log')

function userHome(settings: Settings): string {
  return settings.env('HOME') ?? homedir()
}

/** `agent-gateway` for the default home, `agent-gateway-<8 hex of sha256(home)>` for any other. */
export function serviceName(settings: Settings): string {
  const home = resolve(settings.home)
  return home === resolve(userHome(settings), '.agent') ? 'agent-gateway' : `agent-gateway-${shortHash(home)}`
}

export function unitPath(settings: Settings): string {
  const base = settings.env('XDG_CONFIG_HOME') ?? join(userHome(settings), '.config')
  return join(base, 'systemd', 'user', `${serviceName(settings)}.service`)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Whether a live pid is one of our gateways (Linux: its command line); elsewhere trust liveness. */
function isGateway(pid: number): boolean {
  if (!alive(pid)) return false
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    return cmdline.includes('gateway') && cmdline.includes('run')
  } catch {
    return true
  }
}

export function readPidRecord(home: string): { record?: PidRecord; stale: boolean } {
  const path = pidFilePath(home)
  if (!existsSync(path)) return { stale: false }
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as PidRecord
    if (record.kind === PID_KIND && Number.isInteger(record.pid) && isGateway(record.pid)) return { record, stale: false }
  } catch {}
  return { stale: true }
}

/** Takes the PID file for this process (exclusive create); a stale one is removed first. */
export function acquirePidFile(home: string): PidRecord {
  const path = pidFilePath(home)
  mkdirSync(home, { recursive: true })
  const record: PidRecord = { pid: process.pid, kind: PID_KIND, home: resolve(home), startedAt: Date.now() }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeFileSync(fd, JSON.stringify(record) + '\n')
      closeSync(fd)
      return record
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new AgentError('E_STATE', `cannot write ${path}: ${(error as Error).message}`, { cause: error })
      const { record: existing, stale } = readPidRecord(home)
      if (existing && existing.pid !== process.pid) throw new AgentError('E_STATE', `a gateway is already running for ${home} (pid ${existing.pid})`)
      if (stale || existing) rmSync(path, { force: true })
    }
  }
  throw new AgentError('E_STATE', `cannot take ${path}`)
}

export function releasePidFile(home: string): void {
  const path = pidFilePath(home)
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as PidRecord
    if (record.pid === process.pid) rmSync(path, { force: true })
  } catch {}
  rmSync(stateFilePath(home), { force: true })
}

/** systemd --user is usable (override with AGENT_GATEWAY_SERVICE_MANAGER=process|systemd). */
export function serviceManager(settings: Settings): 'systemd' | 'process' {
  const forced = settings.env('AGENT_GATEWAY_SERVICE_MANAGER')
  if (forced === 'process' || forced === 'systemd') return forced
  if (process.platform !== 'linux') return 'process'
  const probe = spawnSync('systemctl', ['--user', 'show-environment'], { stdio: 'ignore', timeout: 5_000 })
  return probe.status === 0 ? 'systemd' : 'process'
}

function systemctl(args: string[]): void {
  const result = spawnSync('systemctl', ['--user', ...args], { encoding: 'utf8', timeout: 30_000 })
  if (result.status !== 0) throw new AgentError('E_SERVICE', `systemctl --user ${args.join(' ')} failed: ${(result.stderr || result.error?.message || '').trim().split('\n')[0]}`)
}

export function agentBin(): string {
  return fileURLToPath(new URL('../../kernel/bin/agent.mjs', import.meta.url))
}

export function unitFile(settings: Settings): string {
  return [
    '[Unit]',
    `Description=agent messaging gateway (${settings.home})`,
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `Environment=AGENT_HOME=${settings.home}`,
    `ExecStart=${process.execPath} ${agentBin()} gateway run`,
    'Restart=on-failure',
    'RestartSec=5',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n')
}

export interface ServiceStatus {
  running: boolean
  pid?: number
  serviceName: string
  manager: 'systemd' | 'process'
  pidFile: string
  unitFile: string
  unitInstalled: boolean
  logFile: string
  adapters?: unknown
}

export function status(settings: Settings): ServiceStatus {
  const { record } = readPidRecord(settings.home)
  let adapters: unknown
  if (record) {
    try {
      adapters = (JSON.parse(readFileSync(stateFilePath(settings.home), 'utf8')) as { adapters?: unknown }).adapters
    } catch {}
  }
  return {
    running: Boolean(record),
    ...(record ? { pid: record.pid } : {}),
    serviceName: serviceName(settings),
    manager: serviceManager(settings),
    pidFile: pidFilePath(settings.home),
    unitFile: unitPath(settings),
    unitInstalled: existsSync(unitPath(settings)),
    logFile: logFilePath(settings.home),
    ...(adapters ? { adapters } : {}),
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Starts the gateway in the background and waits until it holds its PID file. */
export async function start(settings: Settings, timeoutMs = 30_000): Promise<{ pid: number; how: string }> {
  const { record } = readPidRecord(settings.home)
  if (record) throw new AgentError('E_STATE', `the gateway is already running (pid ${record.pid})`)
  if (serviceManager(settings) === 'systemd' && existsSync(unitPath(settings))) {
    systemctl(['start', serviceName(settings)])
    const pid = await waitForPid(settings.home, undefined, timeoutMs)
    return { pid, how: `systemd --user unit ${serviceName(settings)}` }
  }
  const log = logFilePath(settings.home)
  mkdirSync(dirname(log), { recursive: true })
  const fd = openSync(log, 'a', 0o600)
  // The child inherits this command's environment; AGENT_HOME is pinned so it serves this home.
  const child = spawn(process.execPath, [agentBin(), 'gateway', 'run'], {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, AGENT_HOME: settings.home },
  })
  closeSync(fd)
  let exitCode: number | null = null
  child.on('exit', (code) => (exitCode = code ?? 1))
  child.unref()
  try {
    const pid = await waitForPid(settings.home, () => exitCode, timeoutMs)
    return { pid, how: `background process (log: ${log})` }
  } catch (error) {
    if (exitCode === null) child.kill('SIGTERM')
    const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-3).join(' | ') : ''
    throw new AgentError('E_SERVICE', `${(error as Error).message}${tail ? `: ${tail}` : ''}`)
  }
}

async function waitForPid(home: string, exited: (() => number | null) | undefined, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const { record } = readPidRecord(home)
    if (record && existsSync(stateFilePath(home))) return record.pid
    const code = exited?.()
    if (code !== null && code !== undefined) throw new AgentError('E_SERVICE', `the gateway exited with code ${code} while starting`)
    await sleep(100)
  }
  throw new AgentError('E_TIMEOUT', `the gateway did not start within ${timeoutMs} ms`)
}

/** Stops the running gateway (SIGTERM, then SIGKILL after `graceMs`); false when none was running. */
export async function stop(settings: Settings, graceMs = 20_000): Promise<boolean> {
  const { record, stale } = readPidRecord(settings.home)
  if (stale) rmSync(pidFilePath(settings.home), { force: true })
  if (!record) return false
  if (serviceManager(settings) === 'systemd' && existsSync(unitPath(settings))) {
    try {
      systemctl(['stop', serviceName(settings)])
    } catch {}
  }
  if (alive(record.pid)) process.kill(record.pid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (alive(record.pid) && Date.now() < deadline) await sleep(100)
  if (alive(record.pid)) process.kill(record.pid, 'SIGKILL')
  while (alive(record.pid) && Date.now() < deadline + 5_000) await sleep(50)
  rmSync(pidFilePath(settings.home), { force: true })
  rmSync(stateFilePath(settings.home), { force: true })
  return true
}

export function install(settings: Settings): { unitFile: string; enabled: boolean; note?: string } {
  const path = unitPath(settings)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, unitFile(settings), { mode: 0o644 })
  if (serviceManager(settings) !== 'systemd') {
    return { unitFile: path, enabled: false, note: 'no systemd user manager is reachable: `agent gateway start` runs the gateway as a background process' }
  }
  systemctl(['daemon-reload'])
  systemctl(['enable', serviceName(settings)])
  return { unitFile: path, enabled: true }
}

export function uninstall(settings: Settings): { unitFile: string; removed: boolean } {
  const path = unitPath(settings)
  if (!existsSync(path)) return { unitFile: path, removed: false }
  if (serviceManager(settings) === 'systemd') {
    try {
      systemctl(['disable', '--now', serviceName(settings)])
    } catch {}
  }
  rmSync(path, { force: true })
  if (serviceManager(settings) === 'systemd') {
    try {
      systemctl(['daemon-reload'])
    } catch {}
  }
  return { unitFile: path, removed: true }
}
