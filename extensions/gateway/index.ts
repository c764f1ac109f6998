// The messaging gateway: adapter lifecycle (reconnect with backoff), inbound routing (one session per
// chat, a queue per session, slash commands from the central registry), session reset policy, typing
// delays, background-process notifications, and `agent gateway …` (run, service control, pairing).

import { writeFileSync, renameSync } from 'node:fs'
import {
  BACKGROUND_NOTIFICATION_LEVELS, DATABASE_SERVICE, settleWithin, DELIVERY_SERVICE, defineExtension, errorMessage, GATEWAY_SERVICE, redactPhonesIn, redactSecrets, shouldNotify, STORAGE_SERVICE,
  type AdapterStatus, type BackgroundNotificationLevel, type DatabaseService, type DeliveryService, type GatewayAdapter, type GatewayService, type Logger, type StorageService,
} from 'agent/sdk'
import { gatewaySubcommands } from './cli.ts'
import { Continuity, type BacklogConfig } from './continuity.ts'
import { PG_MIGRATIONS, type ContinuityStore } from './continuity-store.ts'
import { PgContinuityStore } from './continuity-store-pg.ts'
import { SqliteContinuityStore } from './continuity-store-sqlite.ts'
import { describe, Dispatcher } from './dispatcher.ts'
import { leaseTimings, MIN_LEASE_SECONDS } from './adapter-lease.ts'
import { AdapterLifecycle } from './lifecycle.ts'
import { Outbox } from './outbox.ts'
import { openRoutingStore, resetPolicy, type ResetPolicyConfig } from './routing.ts'
import { stateFilePath } from './service-control.ts'

interface GatewayConfig {
  session_reset: ResetPolicyConfig
  human_delay: { min_ms: number; max_ms: number }
  reconnect: { initial_ms: number; max_ms: number }
  reset_notice_exclude: string[]
  backlog: BacklogConfig
  outbox: { max_attempts: number; max_age_minutes: number; retry_initial_ms: number }
  drain_timeout_seconds: number
  lease_seconds: number
}

/** Every line an adapter or the gateway logs has its phone numbers redacted. */
function piiSafe(log: Logger, prefix = ''): Logger {
  const clean = (message: string, fields?: Record<string, unknown>) => [redactPhonesIn(prefix + message), fields ? (JSON.parse(redactPhonesIn(JSON.stringify(fields))) as Record<string, unknown>) : undefined] as const
  return {
    debug: (m, f) => log.debug(...clean(m, f)),
    info: (m, f) => log.info(...clean(m, f)),
    warn: (m, f) => log.warn(...clean(m, f)),
    error: (m, f) => log.error(...clean(m, f)),
  }
}

export default defineExtension<GatewayConfig>({
  name: 'gateway',
  version: '1.1.0',
  description: 'The messaging gateway: adapters, routing, sessions, service control',
  dependsOn: ['http', 'storage'],
  configKey: 'gateway',
  // Every platform's switch and free-form extras; each adapter's own schema (platforms.api_server …) says more.
  settings: {
    platforms: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: {
          enabled: { type: 'boolean' },
          extra: { type: 'object' },
          // This platform's own backlog bound (gateway.backlog otherwise).
          backlog: { type: 'object', properties: { max_messages: { type: 'integer', minimum: 0 }, max_minutes: { type: 'integer', minimum: 0 } }, additionalProperties: false },
        },
      },
    },
  },
  config: {
    type: 'object',
    properties: {
      session_reset: {
        type: 'object',
        properties: {
          mode: { enum: ['both', 'idle', 'daily', 'none'], default: 'both' },
          at_hour: { type: ['integer', 'null'], minimum: 0, maximum: 23 },
          idle_minutes: { type: ['integer', 'null'], minimum: 1 },
        },
        additionalProperties: false,
        default: {},
      },
      human_delay: {
        type: 'object',
        properties: { min_ms: { type: 'integer', minimum: 0, default: 800 }, max_ms: { type: 'integer', minimum: 0, default: 2500 } },
        additionalProperties: false,
        default: {},
      },
      reconnect: {
        type: 'object',
        properties: { initial_ms: { type: 'integer', minimum: 1, default: 30_000 }, max_ms: { type: 'integer', minimum: 1, default: 300_000 } },
        additionalProperties: false,
        default: {},
      },
      reset_notice_exclude: { type: 'array', items: { type: 'string' }, default: ['api_server', 'webhook', 'homeassistant'] },
      // Messages that arrived while an adapter was away: the newest max_messages within max_minutes are answered.
      backlog: {
        type: 'object',
        properties: { max_messages: { type: 'integer', minimum: 0, default: 20 }, max_minutes: { type: 'integer', minimum: 0, default: 60 } },
        additionalProperties: false,
        default: {},
      },
      // Replies that cannot be sent wait in the outbox: retried until this many attempts or this age.
      outbox: {
        type: 'object',
        properties: {
          max_attempts: { type: 'integer', minimum: 1, default: 10 },
          max_age_minutes: { type: 'integer', minimum: 1, maximum: 10_080, default: 1440 },
          retry_initial_ms: { type: 'integer', minimum: 10, maximum: 300_000, default: 2000 },
        },
        additionalProperties: false,
        default: {},
      },
      auth: { type: 'object' },
      // SIGTERM: how long running work may take to finish before it is interrupted (0: none).
      drain_timeout_seconds: { type: 'number', minimum: 0, maximum: 3600, default: 25 },
      // Several instances: a long-lived adapter's lease lasts this long unrenewed (renewed every third),
      // so a killed instance's adapters are taken over within about this plus a quarter of it.
      lease_seconds: { type: 'number', minimum: MIN_LEASE_SECONDS, maximum: 300, default: 8 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const log = piiSafe(api.log)
    const config = api.config
    const minDelay = Math.min(config.human_delay?.min_ms ?? 800, config.human_delay?.max_ms ?? 2500)
    const maxDelay = Math.max(config.human_delay?.min_ms ?? 800, config.human_delay?.max_ms ?? 2500)
    const typingDelay = () => minDelay + Math.floor(Math.random() * (maxDelay - minDelay + 1))
    const adapters = () => api.adapters.list() as GatewayAdapter[]

    const storage = () => api.services.require<StorageService>(STORAGE_SERVICE)
    storage().declare('gateway', PG_MIGRATIONS)
    // Several instances share PostgreSQL: resume points, seen message ids and the outbox with them.
    const shared = storage().backend === 'postgres'
    const store: ContinuityStore = shared
      ? new PgContinuityStore(() => storage().postgres())
      : new SqliteContinuityStore(() => api.services.require<DatabaseService>(DATABASE_SERVICE))
    const safe = (text: string) => redactPhonesIn(redactSecrets(text, api.settings.secretValues()))
    const outbox = new Outbox({
      store,
      adapter: (name) => api.adapters.get(name) as GatewayAdapter | undefined,
      available: (name) => lifecycle.available(name),
      log,
      safe,
      describe: (platform, chatId) => describe({ platform, chatId }),
      maxAttempts: config.outbox?.max_attempts ?? 10,
      maxAgeMs: (config.outbox?.max_age_minutes ?? 1440) * 60_000,
      retryInitialMs: config.outbox?.retry_initial_ms ?? 2000,
      changed: () => queuedChanged(),
    })
    const lifecycle = new AdapterLifecycle({
      list: adapters,
      settings: api.settings,
      services: api.services,
      log,
      adapterLog: (name) => piiSafe(api.log, `[${name}] `),
      backoff: { initialMs: config.reconnect?.initial_ms ?? 30_000, maxMs: config.reconnect?.max_ms ?? 300_000 },
      onChange: () => writeState(),
      onStarted: (name) => void outbox.flush(name, true),
      leases: () => storage().leases,
      leaseTimings: leaseTimings(config.lease_seconds),
      // Taken over from an instance that died: the prompts it left unanswered for this adapter go first.
      onTakenOver: (name) => dispatcher.replayPending([name]),
      // Replies another instance queued for an adapter running here (a cron result, a replay) go out.
      onRenewed: (name) => void outbox.flush(name),
    })
    /** Outbox rows waiting per platform, as last counted (status() answers at once). */
    let queuedCounts = new Map<string, number>()
    let counting: Promise<void> | undefined
    let countAgain = false
    function queuedChanged(): void {
      if (counting) return void (countAgain = true)
      counting = store
        .counts()
        .then((counts) => void (queuedCounts = new Map(counts.filter((c) => c.state === 'queued').map((c) => [c.platform, c.count]))))
        .catch((error) => log.warn(`cannot count the outbox: ${errorMessage(error)}`))
        .finally(() => {
          counting = undefined
          stateSoon()
          if (countAgain) {
            countAgain = false
            queuedChanged()
          }
        })
    }
    let stateWanted = false
    let stateTimer: NodeJS.Timeout | undefined
    /** Counts (drops, queued replies) change often: the status file is rewritten at most once a second. */
    function stateSoon(): void {
      if (!stateWanted || stateTimer) return
      stateTimer = setTimeout(() => {
        stateTimer = undefined
        writeState()
      }, 1000)
      stateTimer.unref?.()
    }
    function writeState(): void {
      if (!stateWanted) return
      const path = stateFilePath(api.settings.home)
      try {
        writeFileSync(`${path}.tmp`, JSON.stringify({ pid: process.pid, updatedAt: Date.now(), adapters: status() }, null, 2), { mode: 0o600 })
        renameSync(`${path}.tmp`, path)
      } catch (error) {
        log.warn(`cannot write ${path}: ${(error as Error).message}`)
      }
    }

    const dispatcher = new Dispatcher({
      services: api.services,
      settings: api.settings,
      hooks: api.hooks,
      log,
      commands: () => api.commands.list(),
      tools: () => api.tools.list(),
      adapter: (name) => api.adapters.get(name) as GatewayAdapter | undefined,
      routing: openRoutingStore(api.services, () => api.services.get<DatabaseService>(DATABASE_SERVICE)),
      store,
      outbox,
      policy: resetPolicy(config.session_reset),
      typingDelay,
      quietResetPlatforms: config.reset_notice_exclude ?? ['api_server', 'webhook', 'homeassistant'],
    })

    const level = (): BackgroundNotificationLevel => {
      const raw = String(api.settings.env('AGENT_BACKGROUND_NOTIFICATIONS') ?? api.settings.get<string>('background_process_notifications') ?? api.settings.get<string>('display.background_process_notifications') ?? 'all').trim().toLowerCase()
      return (BACKGROUND_NOTIFICATION_LEVELS as readonly string[]).includes(raw) ? (raw as BackgroundNotificationLevel) : 'all'
    }

    const continuity = new Continuity({
      store,
      services: api.services,
      settings: api.settings,
      log,
      backlog: config.backlog ?? {},
      dispatch: (message) => dispatcher.dispatch(message),
      deliver: (reply) => outbox.deliver(reply),
      describe,
      changed: () => stateSoon(),
    })
    /** Lifecycle states with what was dropped, queued and given up per adapter. */
    function status(): AdapterStatus[] {
      return lifecycle.status().map((s) => ({ ...s, dropped: continuity.droppedCount(s.name), queued: queuedCounts.get(s.name) ?? 0, failedDeliveries: outbox.failed(s.name) }))
    }

    let draining = false
    const service: GatewayService = {
      draining: () => draining,
      dispatch: (message) => dispatcher.dispatch(message),
      connectionLost: (name, error) => lifecycle.connectionLost(name, error),
      status,
      resumePoint: (adapter) => continuity.resumePoint(adapter),
      catchUp: (adapter, messages) => continuity.catchUp(adapter, messages),
      dropped: (adapter, message) => continuity.dropped(adapter, message),
      connected: (adapter) => void outbox.flush(adapter, true),
      queueDelivery(delivery) {
        if (!lifecycle.manages(delivery.platform)) return false
        void outbox.deliver(delivery)
        return true
      },
      sessionFor: (source) => dispatcher.sessionFor(source),
      typingDelay,
      async notifyBackground(source, event) {
        if (!shouldNotify(level(), event)) return false
        const delivery = api.services.get<DeliveryService>(DELIVERY_SERVICE)
        if (!delivery) return false
        await delivery.send(source, event.text)
        return true
      },
    }
    api.services.provide<GatewayService>(GATEWAY_SERVICE, service)

    const own = gatewaySubcommands(
      {
        async startAdapters() {
          stateWanted = true
          queuedChanged()
          // Prompts a killed run left unanswered go first (ahead of any backlog an adapter hands over
          // as it starts); their replies wait in the outbox until their adapters run.
          // Several instances: only the adapters whose lease this one took (another may be answering the rest).
          return lifecycle.startAll(() => dispatcher.replayPending(shared ? lifecycle.leasedHere() : undefined))
        },
        async drainAdapters() {
          draining = true
          // Adapters' own work (API runs, webhook deliveries) and the chat turns under way end
          // within the same bound; stopAll then interrupts what is left and releases the leases.
          await Promise.all([lifecycle.drainAll((config.drain_timeout_seconds ?? 25) * 1000), settleWithin(dispatcher.drain(), (config.drain_timeout_seconds ?? 25) * 1000)])
        },
        stopAdapters: () => stopAdapters(),
        adapterNames: () => lifecycle.running(),
        standbyNames: () => lifecycle.inState('standby'),
        enabledNames: () => lifecycle.status().map((s) => s.name),
        writeState,
      },
      adapters,
    )
    api.commands.register({
      name: 'gateway',
      category: 'Gateway',
      description: 'Run the messaging gateway; control its service; approve DM pairing',
      cli: {
        // A getter: the adapters' own subcommands (slack-manifest …) are read when the CLI is built,
        // after every extension registered its adapter.
        get subcommands() {
          return { ...Object.assign({}, ...adapters().map((a) => a.cliSubcommands ?? {})), ...own }
        },
      },
    })

    api.commands.register({
      name: 'sethome',
      aliases: ['set-home'],
      category: 'Gateway',
      description: 'Make this chat the default delivery target (home channel) of its platform',
      scope: 'gateway',
      async slash(ctx) {
        const source = ctx.source
        const chatId = source?.chatId ?? source?.userId
        if (!source || !chatId) return void (await ctx.reply('/sethome works in a platform chat only'))
        const prefix = source.platform.toUpperCase().replace(/[^A-Z0-9]/g, '_')
        await api.settings.setEnv(`${prefix}_HOME_CHANNEL`, chatId)
        await ctx.reply(`This chat is now the home channel of ${source.platform}.`)
      },
    })

    /**
     * Sends in flight finish first (bounded): a reply the platform took must be marked sent before
     * its adapter stops, or the next start would send it again.
     */
    async function stopAdapters(): Promise<void> {
      await outbox.settle(5000)
      await lifecycle.stopAll()
      draining = false
    }

    api.onDispose(async () => {
      await stopAdapters()
      outbox.close()
      clearTimeout(stateTimer)
    })
  },
})
