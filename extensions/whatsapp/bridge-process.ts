// One run of the bridge program: spawned with node in its own process group (so stopping it stops
// whatever it started), a minimal environment (nothing of the gateway's secrets), stderr appended
// to <agent_home>/logs/whatsapp-bridge.log, and the port read from its first stdout line. The token
// is random per start and reaches the child only through its environment.

import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { AgentError } from 'agent/sdk'
import { BridgeClient } from './client.ts'

/** Variables a node program needs to run (and reach the network through a proxy); nothing else is inherited. */
const INHERITED = /^(PATH|HOME|USER|LANG|LC_[A-Z]+|TZ|TMPDIR|TEMP|TMP|SYSTEMROOT|NODE_EXTRA_CA_CERTS|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy)$/

export interface BridgeSpawn {
  script: string
  cwd: string
  /** WHATSAPP_* variables for the child (the token is added here). */
  env: Record<string, string>
  logFile: string
  startTimeoutMs: number
}

export interface BridgeRun {
  child: ChildProcess
  client: BridgeClient
  /** Settles with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>
  stop(): Promise<void>
}

export function childEnvironment(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && INHERITED.test(name)) env[name] = value
  return { ...env, ...extra }
}

export async function spawnBridge(options: BridgeSpawn): Promise<BridgeRun> {
  const token = randomBytes(24).toString('base64url')
  mkdirSync(dirname(options.logFile), { recursive: true })
  const logFd = openSync(options.logFile, 'a', 0o600)
  let child: ChildProcess
  try {
    child = spawn(process.execPath, [options.script], {
      cwd: options.cwd,
      env: childEnvironment({ ...options.env, WHATSAPP_BRIDGE_TOKEN: token }),
      detached: true,
      stdio: ['ignore', 'pipe', logFd],
    })
  } finally {
    closeSync(logFd)
  }
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const group = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal)
      } catch {}
    }
    group('SIGTERM')
    const timer = setTimeout(() => group('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
  }
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = ''
    let listening = false
    const timer = setTimeout(() => fail(new AgentError('E_UNAVAILABLE', `the WhatsApp bridge did not start listening within ${Math.round(options.startTimeoutMs / 1000)} s (see ${options.logFile})`)), options.startTimeoutMs)
    const fail = (error: Error) => {
      clearTimeout(timer)
      void stop()
      reject(error)
    }
    child.once('error', (error) => fail(new AgentError('E_UNAVAILABLE', `the WhatsApp bridge could not be started: ${error.message}`)))
    exited.then((code) => !listening && fail(new AgentError('E_UNAVAILABLE', `the WhatsApp bridge exited (${code}) before listening (see ${options.logFile})`)))
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      if (listening) return void appendLog(options.logFile, chunk)
      buffer += chunk
      const newline = buffer.indexOf('\n')
      if (newline < 0) return
      const first = buffer.slice(0, newline)
      try {
        const port = (JSON.parse(first) as { event?: string; port?: number }).port
        if (!Number.isInteger(port)) throw new Error('no port')
        listening = true
        clearTimeout(timer)
        resolve(port!)
      } catch {
        fail(new AgentError('E_UNAVAILABLE', `the WhatsApp bridge printed an unexpected first line (see ${options.logFile})`))
      }
    })
  })
  return { child, client: new BridgeClient(port, token), exited, stop }
}

function appendLog(file: string, text: string): void {
  const fd = openSync(file, 'a', 0o600)
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
}
