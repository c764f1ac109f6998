// Background processes started by `terminal` with `background: true`: a registry per extension
// instance (polled and killed by the `process` tool), and completion notifications at the level of
// `background_process_notifications` / AGENT_BACKGROUND_NOTIFICATIONS (all, result, error, off),
// sent through the gateway when the session came from a chat, else as session progress.

import { spawn, type ChildProcess } from 'node:child_process'
import {
  BACKGROUND_NOTIFICATION_LEVELS,
  DELIVERY_SERVICE,
  GATEWAY_SERVICE,
  errorMessage,
  knownSecretsRedactor,
  shouldNotify,
  type BackgroundEvent,
  type BackgroundNotificationLevel,
  type DeliveryService,
  type GatewayService,
  type Logger,
  type Services,
  type Settings,
  type ToolSession,
} from 'agent/sdk'
import { LiveOutput } from './live-output.ts'
import { OutputBuffer, secretCutGuard } from './output.ts'
import { killTree } from './run-process.ts'

export interface BackgroundProcess {
  id: string
  command: string
  sessionId: string
  pid: number | undefined
  startedAt: number
  endedAt?: number
  exitCode: number | null
  status: 'running' | 'exited' | 'killed'
  output: OutputBuffer
  child: ChildProcess
  done: Promise<void>
}

/** The configured level: the environment variable wins over config.yaml; default `all`. */
export function notificationLevel(settings: Settings): BackgroundNotificationLevel {
  const raw = settings.env('AGENT_BACKGROUND_NOTIFICATIONS') ?? settings.get<string>('background_process_notifications') ?? settings.get<string>('display.background_process_notifications')
  const value = String(raw ?? 'all').trim().toLowerCase() as BackgroundNotificationLevel
  return BACKGROUND_NOTIFICATION_LEVELS.includes(value) ? value : 'all'
}

export class BackgroundRegistry {
  private readonly processes = new Map<string, BackgroundProcess>()
  private counter = 0

  constructor(
    private readonly deps: { settings: Settings; services: Services; log: Logger; limit: number; outputIntervalMs: () => number },
  ) {}

  /** `onEnd`: what the sandbox's watch undid while it ran (sandbox-sentry.ts), told with the exit. */
  start(argv: string[], options: { cwd?: string; env: Record<string, string>; command: string; session: ToolSession; onEnd?: () => string[] }): BackgroundProcess {
    const id = `proc_${++this.counter}`
    const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    // Raw output is cut here before the notification or the poll result is redacted: what is kept
    // next to each cut is guarded, so a secret across it leaves no part of itself (output.ts).
    const guard = () => secretCutGuard(this.deps.settings)
    const output = new OutputBuffer(this.deps.limit, guard)
    let resolveDone!: () => void
    const entry: BackgroundProcess = {
      id,
      command: options.command,
      sessionId: options.session.id,
      pid: child.pid,
      startedAt: Date.now(),
      exitCode: null,
      status: 'running',
      output,
      child,
      done: new Promise<void>((r) => (resolveDone = r)),
    }
    // Running output is redacted as one stream (live-output.ts): a secret printed across two
    // notifications is never shown in part.
    const live = new LiveOutput(this.deps.settings)
    let lastSent = 0
    let flushTimer: NodeJS.Timeout | undefined
    const flush = () => {
      flushTimer = undefined
      const text = live.take()
      if (!text) return
      lastSent = Date.now()
      void this.notify(options.session, { kind: 'output', processId: id, text: `[${id}] ${text}` })
    }
    const take = (chunk: string) => {
      output.push(chunk)
      live.push(chunk)
      if (!flushTimer && live.pending) flushTimer = setTimeout(flush, Math.max(0, lastSent + this.deps.outputIntervalMs() - Date.now()))
    }
    child.stdout!.setEncoding('utf8').on('data', take)
    child.stderr!.setEncoding('utf8').on('data', take)
    const end = (code: number | null, spawnError?: string) => {
      if (entry.endedAt) return
      clearTimeout(flushTimer)
      entry.endedAt = Date.now()
      entry.exitCode = code ?? (entry.status === 'killed' ? 137 : 1)
      if (entry.status === 'running') entry.status = 'exited'
      const tail = spawnError ?? output.last(1500).trim()
      const undone = options.onEnd?.().map((note) => `\n(${note})`).join('') ?? ''
      const text = `Background process ${id} (${options.command.slice(0, 80)}) ${entry.status === 'killed' ? 'was killed' : `exited with code ${entry.exitCode}`}.${undone}${tail ? `\n${tail}` : ''}`
      resolveDone()
      void this.notify(options.session, { kind: 'exit', processId: id, exitCode: entry.exitCode, text })
    }
    child.on('error', (error) => end(127, error.message))
    child.on('close', (code) => end(code))
    this.processes.set(id, entry)
    return entry
  }

  get(id: string): BackgroundProcess | undefined {
    return this.processes.get(id)
  }

  list(sessionId?: string): BackgroundProcess[] {
    return [...this.processes.values()].filter((p) => sessionId === undefined || p.sessionId === sessionId)
  }

  kill(id: string): boolean {
    const entry = this.processes.get(id)
    if (!entry || entry.status !== 'running') return false
    entry.status = 'killed'
    killTree(entry.child, 1000)
    return true
  }

  killAll(): void {
    for (const entry of this.processes.values()) if (entry.status === 'running') this.kill(entry.id)
  }

  /** Sends one event to where the session came from, if the configured level lets it through. */
  async notify(session: ToolSession, raw: BackgroundEvent): Promise<void> {
    if (!shouldNotify(notificationLevel(this.deps.settings), raw)) return
    try {
      // Notifications leave through the gateway or delivery, not the runtime: cleared of secrets here.
      let text: string
      try {
        text = knownSecretsRedactor(this.deps.settings)(raw.text)
      } catch (error) {
        text = `[${raw.processId}] output withheld: the known secrets could not be read to redact it (${errorMessage(error)})`
      }
      const event = { ...raw, text }
      const source = session.source
      const gateway = this.deps.services.get<GatewayService>(GATEWAY_SERVICE)
      if (source && gateway) {
        await gateway.notifyBackground(source, event)
        return
      }
      const delivery = this.deps.services.get<DeliveryService>(DELIVERY_SERVICE)
      if (source?.chatId && delivery) {
        await delivery.send(source, event.text)
        return
      }
      session.progress?.(event.text)
    } catch (error) {
      this.deps.log.warn(`background notification for ${raw.processId} failed: ${errorMessage(error)}`)
    }
  }
}
