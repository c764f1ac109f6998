// State-change events: which pass the filter (watch_domains, watch_entities, watch_all; ignore_entities
// always wins), which are real changes (the state string changed; attribute-only updates, new and
// removed entities are not), and the one-paragraph text the agent receives for a change.

import type { HomeAssistantExtra } from './settings.ts'

/** The parts of a Home Assistant state object used here. */
export interface EntityState {
  entity_id?: string
  state: string
  attributes?: Record<string, unknown>
  last_changed?: string
  context?: { id?: string }
}

export interface StateChangedData {
  entity_id?: unknown
  old_state?: EntityState | null
  new_state?: EntityState | null
}

export interface StateFilter {
  domains: ReadonlySet<string>
  entities: ReadonlySet<string>
  all: boolean
  ignore: ReadonlySet<string>
}

export function filterOf(extra: Pick<HomeAssistantExtra, 'watch_domains' | 'watch_entities' | 'watch_all' | 'ignore_entities'>): StateFilter {
  const set = (values: string[] | undefined) => new Set((values ?? []).map((v) => v.trim()).filter(Boolean))
  return { domains: set(extra.watch_domains), entities: set(extra.watch_entities), all: extra.watch_all === true, ignore: set(extra.ignore_entities) }
}

/** False when nothing could pass: every event is dropped (the adapter warns and does not subscribe). */
export function hasFilter(filter: StateFilter): boolean {
  return filter.all || filter.domains.size > 0 || filter.entities.size > 0
}

/** `light.kitchen` → `light` (the part before the first dot). */
export function domainOf(entityId: string): string {
  const dot = entityId.indexOf('.')
  return dot === -1 ? '' : entityId.slice(0, dot)
}

export function passes(filter: StateFilter, entityId: string): boolean {
  if (filter.ignore.has(entityId)) return false
  return filter.all || filter.entities.has(entityId) || filter.domains.has(domainOf(entityId))
}

/** The old and new state of a real change, or why it is not one. */
export function changeOf(data: StateChangedData): { entityId: string; from: EntityState; to: EntityState } | { skip: 'no-entity' | 'added' | 'removed' | 'attributes-only' } {
  const entityId = typeof data.entity_id === 'string' ? data.entity_id : ''
  if (!entityId) return { skip: 'no-entity' }
  if (!data.new_state || typeof data.new_state.state !== 'string') return { skip: 'removed' }
  if (!data.old_state || typeof data.old_state.state !== 'string') return { skip: 'added' }
  if (data.old_state.state === data.new_state.state) return { skip: 'attributes-only' }
  return { entityId, from: data.old_state, to: data.new_state }
}

const MAX_VALUE = 120

/** One line, no control characters, bounded: remote text never shapes the prompt's structure. */
export function cleanValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim()
  return flat.length > MAX_VALUE ? `${flat.slice(0, MAX_VALUE - 1)}…` : flat
}

/** Plain tokens stay bare (`on`, `21.5`, `not_home`); anything else is quoted. */
function showState(state: string, unit: string): string {
  const value = cleanValue(state)
  const shown = /^[\w.:+-]+$/.test(value) ? value : JSON.stringify(value)
  return unit && /^-?\d+(\.\d+)?$/.test(value) ? `${shown} ${unit}` : shown
}

/** Attributes worth a sentence, in this order, when the entity has them. */
const USEFUL_ATTRIBUTES = [
  'device_class', 'current_temperature', 'temperature', 'target_temp_low', 'target_temp_high', 'hvac_action', 'current_humidity',
  'brightness', 'color_temp_kelvin', 'current_position', 'battery_level', 'media_title', 'media_artist', 'source',
]

export interface ChangeNote {
  /** Changes folded into this report (cooldown); more than 1 adds a note. */
  changes: number
  /** The cooldown window, for the note. */
  windowSeconds: number
}

/** `[Home Assistant] Kitchen light (light.kitchen) changed from off to on. Attributes: brightness=200.` */
export function describeChange(entityId: string, fromState: string, to: EntityState, note?: ChangeNote): string {
  const attributes = to.attributes ?? {}
  const unit = typeof attributes.unit_of_measurement === 'string' ? cleanValue(attributes.unit_of_measurement) : ''
  const name = typeof attributes.friendly_name === 'string' && attributes.friendly_name.trim() ? cleanValue(attributes.friendly_name) : ''
  const who = name && name !== entityId ? `${name} (${entityId})` : entityId
  let text = `[Home Assistant] ${who} changed from ${showState(fromState, unit)} to ${showState(to.state, unit)}.`
  if (note && note.changes > 1) text += ` (${note.changes} changes within ${note.windowSeconds} s; the latest state is shown.)`
  const shown = USEFUL_ATTRIBUTES.filter((key) => attributes[key] !== undefined && attributes[key] !== null).map((key) => `${key}=${cleanValue(attributes[key])}`)
  if (shown.length > 0) text += ` Attributes: ${shown.join(', ')}.`
  return text
}
