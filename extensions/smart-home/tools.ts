// The `homeassistant` toolset, offered only when HASS_TOKEN is set: ha_get_state (one entity, the
// entities of a domain, or the domains) and ha_call_service (a service call with an optional target).
// Services that run code or administer Home Assistant itself are refused.

import { AgentError, defineTool, type ToolDefinition } from 'agent/sdk'
import type { HassEntity } from 'home-assistant-js-websocket'
import type { HaClient } from './client.ts'
import { cleanValue, domainOf } from './events.ts'
import { homeAssistantConfigured } from './settings.ts'

/** Domains whose services run arbitrary code or commands, or administer the installation. */
export const BLOCKED_DOMAINS = new Set(['shell_command', 'command_line', 'python_script', 'pyscript', 'rest_command', 'hassio', 'backup', 'update', 'recorder', 'logger', 'system_log', 'cloud'])
/** Of the `homeassistant` domain only these entity services are allowed (not restart, stop, reloads …). */
const HOMEASSISTANT_ALLOWED = new Set(['turn_on', 'turn_off', 'toggle', 'update_entity'])
const NAME = /^[a-z0-9_]+$/
const ENTITY = /^[a-z0-9_]+\.[a-z0-9_]+$/
const MAX_LISTED = 200

export function serviceRefusal(domain: string, service: string): string | undefined {
  if (BLOCKED_DOMAINS.has(domain)) return `services of the "${domain}" domain are not available to the agent`
  if (domain === 'homeassistant' && !HOMEASSISTANT_ALLOWED.has(service)) return `homeassistant.${service} is not available to the agent (only ${[...HOMEASSISTANT_ALLOWED].join(', ')})`
  return undefined
}

function entityIds(value: unknown): string[] | undefined {
  if (value === undefined) return undefined
  const ids = (Array.isArray(value) ? value : [value]).map(String)
  const bad = ids.find((id) => !ENTITY.test(id))
  if (bad !== undefined) throw new AgentError('E_USAGE', `"${bad}" is not an entity id (domain.object_id)`)
  return ids
}

export function homeAssistantTools(lease: () => Promise<HaClient>): ToolDefinition[] {
  const getState = defineTool<{ entity_id?: string; domain?: string }>({
    name: 'ha_get_state',
    toolset: 'homeassistant',
    description:
      'Reads Home Assistant. With entity_id: that entity\'s state and attributes. With domain (e.g. "light"): the entities of that domain and their states. With neither: the domains and how many entities each has.',
    parameters: {
      type: 'object',
      properties: {
        entity_id: { type: 'string', description: 'An entity id such as light.kitchen' },
        domain: { type: 'string', description: 'A domain such as light, sensor, climate' },
      },
      additionalProperties: false,
    },
    available: homeAssistantConfigured,
    async execute({ input, signal }) {
      const states: HassEntity[] = await (await lease()).states(signal)
      if (input.entity_id) {
        const found = states.find((s) => s.entity_id === input.entity_id)
        if (!found) throw new AgentError('E_NOT_FOUND', `Home Assistant has no entity "${input.entity_id}"`)
        return { entity_id: found.entity_id, state: found.state, attributes: found.attributes, last_changed: found.last_changed, last_updated: found.last_updated }
      }
      if (input.domain) {
        const matching = states.filter((s) => domainOf(s.entity_id) === input.domain)
        return {
          domain: input.domain,
          count: matching.length,
          entities: matching.slice(0, MAX_LISTED).map((s) => ({ entity_id: s.entity_id, state: s.state, name: s.attributes?.friendly_name === undefined ? undefined : cleanValue(s.attributes.friendly_name) })),
          ...(matching.length > MAX_LISTED ? { truncated: true } : {}),
        }
      }
      const domains: Record<string, number> = {}
      for (const s of states) domains[domainOf(s.entity_id)] = (domains[domainOf(s.entity_id)] ?? 0) + 1
      return { domains }
    },
  })

  const callService = defineTool<{ domain: string; service: string; entity_id?: string | string[]; data?: Record<string, unknown> }>({
    name: 'ha_call_service',
    toolset: 'homeassistant',
    description:
      'Calls a Home Assistant service, e.g. domain "light", service "turn_on", entity_id "light.kitchen", data {"brightness_pct": 50}. Services that run code or administer Home Assistant are refused.',
    parameters: {
      type: 'object',
      properties: {
        domain: { type: 'string', description: 'Service domain, e.g. light, switch, climate, notify' },
        service: { type: 'string', description: 'Service name, e.g. turn_on, set_temperature' },
        entity_id: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'Target entity id(s)' },
        data: { type: 'object', description: 'Service data (fields of the service)' },
      },
      required: ['domain', 'service'],
      additionalProperties: false,
    },
    available: homeAssistantConfigured,
    async execute({ input, signal }) {
      const { domain, service } = input
      if (!NAME.test(String(domain)) || !NAME.test(String(service))) throw new AgentError('E_USAGE', 'domain and service are lower-case names such as "light" and "turn_on"')
      const refusal = serviceRefusal(domain, service)
      if (refusal) throw new AgentError('E_BLOCKED', refusal)
      if (input.data !== undefined && (typeof input.data !== 'object' || input.data === null || Array.isArray(input.data))) throw new AgentError('E_USAGE', 'data must be an object')
      const ids = entityIds(input.entity_id)
      const result = (await (await lease()).callService(domain, service, input.data, ids ? { entity_id: ids } : undefined, signal)) as { response?: unknown } | null
      return { ok: true, called: `${domain}.${service}`, ...(ids ? { entity_id: ids } : {}), ...(result?.response != null ? { response: result.response } : {}) }
    },
  })

  return [getState, callService]
}
