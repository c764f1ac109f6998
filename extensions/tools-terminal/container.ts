// The container backend on the docker or podman command line: one container per session, started on
// first use and removed when the session's terminal is closed. Only the variables named in
// `terminal.container_forward_env` (and `terminal.container.env`) enter it, passed as `-e NAME` with
// the value in the engine client's own environment, so values never appear on a command line. The
// working directory enters only with `terminal.container_mount_cwd_to_workspace`.

import { randomBytes } from 'node:crypto'
import type { Settings } from 'agent/sdk'
import { ENGINE_CLIENT_ENV, pickEnv, type TerminalConfig } from './config.ts'
import { runProcess } from './run-process.ts'

export interface ContainerPlan {
  engine: string
  name: string
  /** `docker run -d …` that starts the session's container. */
  runArgv: string[]
  /** Environment of every engine client call: how to reach the daemon, plus the forwarded values. */
  clientEnv: Record<string, string>
  /** Names whose values enter the container. */
  forwarded: string[]
}

/** Builds the exact command line that starts a session's container. */
export function planContainer(config: TerminalConfig, settings: Settings, cwd: string, sessionTag: string): ContainerPlan {
  const engine = config.container_engine
  const name = `agent-${sessionTag}-${randomBytes(3).toString('hex')}`
  const forwarded: string[] = []
  const values: Record<string, string> = {}
  for (const variable of config.container_forward_env) {
    // The process environment first, then <agent_home>/.env: Settings.env has exactly that order.
    const value = settings.env(variable)
    if (value === undefined) continue
    values[variable] = value
    forwarded.push(variable)
  }
  for (const [variable, value] of Object.entries(config.container.env ?? {})) {
    values[variable] = value
    if (!forwarded.includes(variable)) forwarded.push(variable)
  }
  const argv = [engine, 'run', '-d', '--rm', '--name', name, '--init', '--security-opt', 'no-new-privileges', '--pids-limit', '512']
  if (config.container_mount_cwd_to_workspace) argv.push('-v', `${cwd}:${config.container_workdir}`)
  argv.push('-w', config.container_workdir)
  for (const variable of forwarded) argv.push('-e', variable)
  argv.push(...config.container_args, config.container_image, 'sleep', 'infinity')
  // The client's own variables (where the daemon is) are named, never forwarded: `-e` lists only the above.
  const clientEnv = { ...pickEnv(settings, ENGINE_CLIENT_ENV), ...values }
  return { engine, name, runArgv: argv, clientEnv, forwarded }
}

export function execArgv(plan: ContainerPlan, shell: string, command: string, workdir: string): string[] {
  return [plan.engine, 'exec', '-w', workdir, plan.name, shell, '-c', command]
}

export function interactiveShellArgv(plan: ContainerPlan, shell: string, workdir: string): string[] {
  return [plan.engine, 'exec', '-i', '-w', workdir, plan.name, shell, '--noprofile', '--norc']
}

/** One session's container: started lazily, once, even when commands race. */
export class SessionContainer {
  readonly plan: ContainerPlan
  private started: Promise<void> | undefined

  constructor(plan: ContainerPlan) {
    this.plan = plan
  }

  ensure(timeoutMs: number): Promise<void> {
    this.started ??= runProcess(this.plan.runArgv, { env: this.plan.clientEnv, timeoutMs, limit: 4000 }).then((outcome) => {
      if (outcome.spawnError) throw new Error(`cannot run ${this.plan.engine}: ${outcome.spawnError}`)
      if (outcome.exitCode !== 0) throw new Error(`${this.plan.engine} run failed (exit ${outcome.exitCode}): ${outcome.output.trim().split('\n').pop() ?? ''}`)
    })
    this.started.catch(() => (this.started = undefined))
    return this.started
  }

  async remove(): Promise<void> {
    if (!this.started) return
    this.started = undefined
    await runProcess([this.plan.engine, 'rm', '-f', this.plan.name], { env: this.plan.clientEnv, timeoutMs: 30_000, limit: 2000 })
  }
}
