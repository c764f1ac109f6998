// The `homeassistant` gateway adapter: connects with HASS_TOKEN, subscribes to state_changed, lets the
// configured events through (with a per-entity cooldown and a bound on queued runs) and hands each as
// one message of the fixed chat `ha_events` to the gateway; the agent's answers (and any delivery to
// `homeassistant`) become persistent notifications in Home Assistant. Home Assistant replays nothing
// after a reconnect, so the watched entities' states are read back then and a change missed while
// the connection was down is handed over as if its event had come (the net change; its context id
// makes it the same message as the event, should that arrive too). A notification that cannot be
// sent while the connection is down waits in the gateway's outbox.

import {
  AgentError, ConfigError, DeliveryDeferred, errorMessage, GATEWAY_SERVICE,
  type AdapterContext, type GatewayAdapter, type GatewayInbound, type GatewayService, type Logger,
} from 'agent/sdk'
import type { HassEvent } from 'home-assistant-js-websocket'
import { HaClient } from './client.ts'
import { CooldownGate, type Report } from './cooldown.ts'
import { changeOf, describeChange, filterOf, hasFilter, passes, type EntityState, type StateChangedData } from './events.ts'
import { endpointOf, homeAssistantEnabled, PLATFORM, tokenOf, type HomeAssistantExtra } from './settings.ts'

/** Every event is a message of this one chat, from this one sender: one session holds the home's story. */
export const EVENTS_CHAT = 'ha_events'
export const EVENTS_SOURCE: GatewayInbound['source'] = { platform: PLATFORM, userId: 'homeassistant', userName: 'Home Assistant', chatId: EVENTS_CHAT, chatType: 'channel' }

const DROP_WARNING_INTERVAL_MS = 60_000

interface Running {
  client: HaClient
  gate: CooldownGate
  log: Logger
}

export interface HomeAssistantAdapter extends GatewayAdapter {
  /** The live connection while the adapter runs (tools and send() reuse it). */
  connection(): HaClient | undefined
}

export interface AdapterOptions {
  /** platforms.homeassistant.extra (validated, defaults applied). */
  extra(): Readonly<HomeAssistantExtra>
  /** A connection for one-off use (send() outside a running gateway, e.g. cron in a CLI process). */
  onDemand(): Promise<HaClient>
}

export function createAdapter(options: AdapterOptions): HomeAssistantAdapter {
  const extra = options.extra
  let running: Running | undefined

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) await stop()
    const config = extra()
    const endpoint = endpointOf(ctx.settings, config)
    const token = tokenOf(ctx.settings)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the Home Assistant adapter needs the gateway service')
    const log = ctx.log
    const filter = filterOf(config)
    const windowSeconds = config.cooldown_seconds ?? 30
    let queued = 0
    let dropped = 0
    let droppedWarnedAt = 0
    let deniedWarned = false

    const dispatch = (report: Report) => {
      const text = describeChange(report.entityId, report.from, report.to, { changes: report.changes, windowSeconds })
      if (queued >= (config.max_queued_events ?? 20)) {
        dropped++
        gateway.dropped(PLATFORM, { reason: `${queued} events already wait for the agent (platforms.homeassistant.extra.max_queued_events)`, chatId: EVENTS_CHAT, messageId: report.entityId })
        if (Date.now() - droppedWarnedAt >= DROP_WARNING_INTERVAL_MS) {
          log.warn(`${queued} Home Assistant events are waiting for the agent; dropped ${dropped} more (platforms.homeassistant.extra.max_queued_events)`)
          droppedWarnedAt = Date.now()
          dropped = 0
        }
        return
      }
      queued++
      const contextId = report.to.context?.id
      gateway
        .dispatch({ source: { ...EVENTS_SOURCE }, text, messageId: contextId ? `${report.entityId}:${contextId}` : undefined, receivedAt: Date.now() })
        .then(async (result) => {
          log.debug(`${report.entityId} → ${result.status}`)
          if (result.status === 'denied' && !deniedWarned) {
            deniedWarned = true
            log.warn('the gateway denied Home Assistant events (no allow rule for the homeassistant platform); set HOMEASSISTANT_GROUP_ALLOWED_USERS=homeassistant')
          }
          await result.done
        })
        .catch((error) => log.error(`event of ${report.entityId} failed: ${errorMessage(error)}`))
        .finally(() => queued--)
    }
    const gate = new CooldownGate(windowSeconds * 1000, dispatch, (entityId, changes) => log.debug(`${entityId}: ${changes} changes returned to the reported state; nothing sent`))

    /** The last state seen of each watched entity: what a reconnect compares against. */
    const known = new Map<string, EntityState>()
    const onEvent = (event: HassEvent) => {
      const data = (event?.data ?? {}) as StateChangedData
      if (typeof data.entity_id !== 'string' || !passes(filter, data.entity_id)) return
      if (data.new_state && typeof data.new_state.state === 'string') known.set(data.entity_id, data.new_state)
      else known.delete(data.entity_id)
      const change = changeOf(data)
      if ('skip' in change) return void log.debug(`${data.entity_id}: ${change.skip}; ignored`)
      gate.offer(change.entityId, change.from, change.to)
    }

    const client = await HaClient.connect({
      wsUrl: endpoint.wsUrl,
      baseUrl: endpoint.baseUrl,
      token,
      log,
      pingIntervalMs: (config.ping_interval_seconds ?? 30) * 1000,
      onAuthLost: (error) => gateway.connectionLost(PLATFORM, error),
      onReconnected: () => void readBack().finally(() => gateway.connected(PLATFORM)),
    })
    /** The states now against the last ones seen: a change missed while disconnected becomes its event. */
    async function readBack(): Promise<void> {
      if (!hasFilter(filter)) return
      try {
        const states = (await client.states()) as unknown as EntityState[]
        let missed = 0
        for (const state of states) {
          if (typeof state?.entity_id !== 'string' || !passes(filter, state.entity_id)) continue
          const before = known.get(state.entity_id)
          if (!before || before.state === state.state) {
            known.set(state.entity_id, state)
            continue
          }
          missed++
          onEvent({ data: { entity_id: state.entity_id, old_state: before, new_state: state } } as unknown as HassEvent)
        }
        if (missed > 0) log.info(`${missed} watched entit${missed === 1 ? 'y' : 'ies'} changed while the connection was down`)
      } catch (error) {
        log.warn(`cannot read the states back after reconnecting: ${errorMessage(error)}`)
      }
    }
    try {
      if (ctx.signal.aborted) throw new AgentError('E_INTERRUPTED', 'the gateway stopped while connecting to Home Assistant')
      log.info(`connected to Home Assistant ${client.haVersion} at ${endpoint.baseUrl}`)
      if (!hasFilter(filter)) {
        log.warn('no event filter configured (platforms.homeassistant.extra.watch_domains, watch_entities or watch_all): every state change is dropped')
      } else {
        await client.subscribeStateChanges(onEvent)
        // What a reconnect compares against (without it, changes missed before the first event are not seen).
        const states = (await client.states().catch((error: unknown) => void log.warn(`cannot read the states: ${errorMessage(error)}`))) as unknown as EntityState[] | undefined
        for (const state of states ?? []) if (typeof state?.entity_id === 'string' && passes(filter, state.entity_id)) known.set(state.entity_id, state)
        const what = filter.all ? 'every entity' : [...filter.domains].map((d) => `${d}.*`).concat([...filter.entities]).join(', ')
        log.info(`watching ${what}${filter.ignore.size ? ` (ignoring ${[...filter.ignore].join(', ')})` : ''}; cooldown ${windowSeconds} s per entity`)
      }
    } catch (error) {
      client.close()
      throw error
    }
    running = { client, gate, log }
  }

  async function stop(): Promise<void> {
    const current = running
    running = undefined
    if (!current) return
    current.gate.clear()
    current.client.close()
  }

  return {
    name: PLATFORM,
    description: 'Home Assistant: state-change events in (HASS_URL, HASS_TOKEN), persistent notifications out',
    enabled: homeAssistantEnabled,
    // `deliver: homeassistant` (no chat, no home channel) lands in the notifications too.
    defaultChatId: EVENTS_CHAT,
    start,
    stop,
    connection: () => (running?.client.connected ? running.client : undefined),
    async send(chatId, text) {
      // One chat kind only: every delivery is a notification (the chat id is not shown in Home Assistant).
      const title = extra().notification_title ?? 'Agent'
      // Reconnecting: the gateway's outbox sends it once the connection is back.
      if (running && !running.client.connected) throw new DeliveryDeferred('the connection to Home Assistant is down (reconnecting)')
      const client = running?.client ?? (await options.onDemand())
      try {
        await client.callService('persistent_notification', 'create', { title, message: text })
      } catch (error) {
        if (running?.client === client && !client.connected) throw new DeliveryDeferred(`the connection to Home Assistant dropped while sending: ${errorMessage(error)}`, { cause: error })
        throw error
      }
      running?.log.debug(`notification for ${chatId} sent (${text.length} characters)`)
    },
  }
}
