// `agent gateway run|start|stop|restart|status|install|uninstall|setup|pair`: the gateway in the
// foreground, service control scoped by AGENT_HOME, configuration, and DM pairing approval.

import { AgentError, errorMessage, GATEWAY_AUTH_SERVICE, HTTP_SERVICE, redactPhone, snakeCaseKeys, UsageError, type CliContext, type CliSubcommand, type GatewayAuthService, type HttpService, type Settings } from 'agent/sdk'
import * as control from './service-control.ts'

export interface GatewayRunner {
  /** Starts adapters; returns fatal start failures. */
  startAdapters(): Promise<Array<{ name: string; error: unknown }>>
  /** SIGTERM / Ctrl-C: adapters finish the work under way (bounded by gateway.drain_timeout_seconds). */
  drainAdapters(): Promise<void>
  stopAdapters(): Promise<void>
  adapterNames(): string[]
  /** Adapters waiting while another instance holds their lease. */
  standbyNames(): string[]
  /** Adapters that are enabled (running, retrying or failed). */
  enabledNames(): string[]
  writeState(): void
}

const json = { json: { type: 'boolean' as const, describe: 'Print one JSON document' } }
/** `--json` output: the records here are camelCase in code, snake_case on the wire like every --json. */
const printJson = (ctx: CliContext, value: unknown) => ctx.json(snakeCaseKeys(value))

/** Said once by `gateway run` when no adapter is enabled: it still runs cron jobs and extension endpoints. */
export const NO_ADAPTER_HINT =
  'no adapter is enabled (only cron jobs and extension endpoints run): API_SERVER_ENABLED=true serves the OpenAI-compatible API on 127.0.0.1:8642; `agent gateway setup` lists the others and enables one'
const showUser = (id: string) => (/^\+?[\d\s().-]{7,}$/.test(id) ? redactPhone(id) : id)

function auth(ctx: CliContext): GatewayAuthService {
  const service = ctx.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  if (!service) throw new AgentError('E_DEPENDENCY', 'pairing needs the gateway-auth extension, which is not loaded')
  return service
}

export function gatewaySubcommands(runner: GatewayRunner, platforms: () => Array<{ name: string; description?: string; enabled(settings: Settings): boolean }>): Record<string, CliSubcommand> {
  const printStatus = (ctx: CliContext) => {
    const s = control.status(ctx.settings)
    if (ctx.argv.json) return printJson(ctx, s)
    ctx.out(`${s.serviceName}: ${s.running ? `running (pid ${s.pid})` : 'stopped'}`)
    ctx.out(`  PID file: ${s.pidFile}`)
    ctx.out(`  manager:  ${s.manager}${s.unitInstalled ? ` (unit ${s.unitFile})` : ''}`)
    ctx.out(`  log:      ${s.logFile}`)
    if (Array.isArray(s.adapters)) {
      for (const a of s.adapters as Array<{ name: string; state: string; heldBy?: string; lastError?: string; dropped?: number; queued?: number; failedDeliveries?: number }>) {
        // What was dropped on purpose, waits in the outbox or was given up: shown when there is any.
        const counts = [a.dropped ? `${a.dropped} dropped` : '', a.queued ? `${a.queued} queued` : '', a.failedDeliveries ? `${a.failedDeliveries} undeliverable` : ''].filter(Boolean).join(', ')
        const why = a.heldBy ? `held by ${a.heldBy}` : (a.lastError ?? '')
        ctx.out(`  adapter ${a.name}: ${a.state}${why ? ` (${why})` : ''}${counts ? ` [${counts}]` : ''}`)
      }
    }
  }

  return {
    run: {
      description: 'Run the gateway in the foreground until Ctrl-C: every enabled adapter (see `agent gateway setup`), the cron scheduler and extension endpoints',
      examples: [
        ['API_SERVER_ENABLED=true agent gateway run', 'Serve the OpenAI-compatible API on 127.0.0.1:8642 (API_SERVER_PORT, API_SERVER_KEY)'],
        ['agent gateway setup --enable webhook', 'Enable a platform in config.yaml (then run)'],
        ['agent gateway start', 'The same gateway as a background service'],
      ],
      async run(ctx: CliContext) {
        control.acquirePidFile(ctx.settings.home)
        try {
          await ctx.start('gateway')
          const fatal = await runner.startAdapters()
          if (fatal.length > 0) {
            for (const { name, error } of fatal) ctx.err(`agent: adapter "${name}" cannot start: ${errorMessage(error)}`)
            await runner.stopAdapters()
            return 2
          }
          const http = ctx.services.get<HttpService>(HTTP_SERVICE)
          for (const name of http?.running() ?? []) ctx.err(`listening: ${name} on ${http!.address(name)!.url}`)
          runner.writeState()
          // The gateway also hosts the cron scheduler and extension endpoints, so it keeps running;
          // but a newcomer with nothing enabled is told how to enable something.
          if (runner.enabledNames().length === 0) ctx.err(`agent: ${NO_ADAPTER_HINT}`)
          const standby = runner.standbyNames()
          ctx.err(`gateway running (adapters: ${runner.adapterNames().join(', ') || 'none'}${standby.length ? `; on standby: ${standby.join(', ')}` : ''}; service ${control.serviceName(ctx.settings)}); Ctrl-C to stop`)
          await new Promise<void>((resolve) => {
            if (ctx.signal.aborted) return resolve()
            ctx.signal.addEventListener('abort', () => resolve(), { once: true })
          })
          ctx.err('gateway stopping: draining')
          await runner.drainAdapters()
          await runner.stopAdapters()
        } finally {
          control.releasePidFile(ctx.settings.home)
        }
      },
    },
    start: {
      description: 'Start the gateway as a background service for this AGENT_HOME',
      options: json,
      async run(ctx: CliContext) {
        const started = await control.start(ctx.settings)
        if (ctx.argv.json) return printJson(ctx, { started: true, pid: started.pid, serviceName: control.serviceName(ctx.settings), how: started.how })
        ctx.out(`gateway started (pid ${started.pid}) as ${started.how}`)
      },
    },
    stop: {
      description: 'Stop the background gateway of this AGENT_HOME',
      options: json,
      async run(ctx: CliContext) {
        const stopped = await control.stop(ctx.settings)
        if (ctx.argv.json) return printJson(ctx, { stopped })
        ctx.out(stopped ? 'gateway stopped' : 'the gateway was not running')
      },
    },
    restart: {
      description: 'Stop and start the background gateway',
      options: json,
      async run(ctx: CliContext) {
        await control.stop(ctx.settings)
        const started = await control.start(ctx.settings)
        if (ctx.argv.json) return printJson(ctx, { started: true, pid: started.pid })
        ctx.out(`gateway restarted (pid ${started.pid})`)
      },
    },
    status: {
      description: 'Show whether the gateway of this AGENT_HOME runs, its PID file and service name',
      options: json,
      run: (ctx: CliContext) => printStatus(ctx),
    },
    install: {
      description: 'Install the gateway as a systemd --user service (name scoped by AGENT_HOME)',
      options: json,
      run(ctx: CliContext) {
        const result = control.install(ctx.settings)
        if (ctx.argv.json) return printJson(ctx, { serviceName: control.serviceName(ctx.settings), ...result })
        ctx.out(`wrote ${result.unitFile}${result.enabled ? ' and enabled it' : ''}`)
        if (result.note) ctx.out(result.note)
      },
    },
    uninstall: {
      description: 'Remove the gateway service unit',
      options: json,
      run(ctx: CliContext) {
        const result = control.uninstall(ctx.settings)
        if (ctx.argv.json) return printJson(ctx, result)
        ctx.out(result.removed ? `removed ${result.unitFile}` : 'no service unit was installed')
      },
    },
    setup: {
      description: 'Show the gateway platforms and enable or disable one',
      options: {
        ...json,
        enable: { type: 'string', describe: 'Enable a platform (platforms.<name>.enabled: true)' },
        disable: { type: 'string', describe: 'Disable a platform' },
      },
      async run(ctx: CliContext) {
        const known = platforms()
        for (const [flag, value] of [['enable', true], ['disable', false]] as const) {
          const name = ctx.argv[flag]
          if (typeof name !== 'string') continue
          if (!known.some((p) => p.name === name)) throw new UsageError(`unknown platform "${name}" (known: ${known.map((p) => p.name).join(', ')})`)
          await ctx.settings.set(`platforms.${name}.enabled`, value)
          ctx.err(`platforms.${name}.enabled = ${value}`)
        }
        const rows = known.map((p) => ({ name: p.name, enabled: safeEnabled(p, ctx.settings), description: p.description ?? '' }))
        if (ctx.argv.json) return printJson(ctx, { serviceName: control.serviceName(ctx.settings), platforms: rows })
        for (const row of rows) ctx.out(`${row.enabled ? '[on] ' : '[off]'} ${row.name}  ${row.description}`)
        ctx.out('Enable one with `agent gateway setup --enable <name>`; then `agent gateway start` (or `install`).')
      },
    },
    pair: {
      description: 'DM pairing: list pending codes and paired users, approve a code, revoke a user',
      subcommands: {
        list: {
          description: 'Pending pairing requests and approved users',
          options: json,
          async run(ctx: CliContext) {
            const service = auth(ctx)
            const [pending, approved] = await Promise.all([service.pending(), service.approved()])
            if (ctx.argv.json) return printJson(ctx, { pending, approved })
            ctx.out(pending.length ? 'pending:' : 'no pending pairing requests')
            for (const p of pending) ctx.out(`  ${p.platform} ${showUser(p.userId)}${p.userName ? ` (${p.userName})` : ''} expires ${new Date(p.expiresAt).toISOString()}${p.lockedUntil ? `, locked until ${new Date(p.lockedUntil).toISOString()}` : ''}`)
            ctx.out(approved.length ? 'approved:' : 'no paired users')
            for (const a of approved) ctx.out(`  ${a.platform} ${showUser(a.userId)}${a.userName ? ` (${a.userName})` : ''}`)
          },
        },
        approve: {
          description: 'Approve the pairing code a user received',
          args: '<code>',
          options: json,
          async run(ctx: CliContext) {
            const approved = await auth(ctx).approve(String(ctx.argv.code))
            if (ctx.argv.json) return printJson(ctx, approved)
            ctx.out(`paired ${approved.platform} user ${showUser(approved.userId)}`)
          },
        },
        revoke: {
          description: 'Revoke a paired user',
          args: '<platform> <user>',
          options: json,
          async run(ctx: CliContext) {
            const revoked = await auth(ctx).revoke(String(ctx.argv.platform), String(ctx.argv.user))
            if (ctx.argv.json) return printJson(ctx, { revoked })
            if (!revoked) {
              ctx.err('agent: no such paired user')
              return 1
            }
            ctx.out('revoked')
          },
        },
      },
    },
  }
}

function safeEnabled(p: { enabled(settings: Settings): boolean }, settings: Settings): boolean {
  try {
    return p.enabled(settings)
  } catch {
    return false
  }
}
