// Schedules: cron expressions (5 or 6 fields, or @hourly-style nicknames, evaluated by croner in the
// configured time zone), recurring intervals (`every 2h`), one-shot delays (`30m`, `in 2h`) and
// one-shot times (ISO 8601; a time without an offset is read in the configured zone). Anything else
// is refused with the list of accepted forms.

import { Cron } from 'croner'
import { UsageError } from 'agent/sdk'

export type ScheduleKind = 'cron' | 'interval' | 'once'

export interface Schedule {
  kind: ScheduleKind
  /** As given (trimmed). */
  text: string
  /** For people: `every 2h`, `cron 0 9 * * * (Europe/Paris)`, `once at 2026-02-03T14:00 (Europe/Paris)`. */
  display: string
  timezone: string
  intervalMs?: number
  /** One-shot: epoch ms. */
  runAt?: number
}

export const FORMS = 'a cron expression ("0 9 * * 1-5", "@daily"), an interval ("every 2h", "every 30m"), a delay ("30m", "in 2h") or a time ("2026-02-03T14:00", read in the configured time zone)'

/** One-shots a little in the past (a slow command line, a gateway restart) still run. */
export const PAST_GRACE_MS = 60_000
const MIN_GAP_MS = 60_000

const UNITS: Record<string, number> = { m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000, h: 3_600_000, hr: 3_600_000, hrs: 3_600_000, hour: 3_600_000, hours: 3_600_000, d: 86_400_000, day: 86_400_000, days: 86_400_000 }
const DURATION = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i
const CRON_FIELD = /^[\d*,/\-?LW#A-Za-z]+$/

export function checkTimezone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return zone
  } catch {
    throw new UsageError(`unknown time zone "${zone}" (use an IANA name such as Europe/Paris)`)
  }
}

function duration(text: string): number | undefined {
  const match = DURATION.exec(text)
  if (!match) return undefined
  const unit = UNITS[match[2]!]
  if (!unit) return undefined
  return Math.round(Number(match[1]) * unit)
}

/** Offset (ms) of a zone at an instant: wall-clock time there minus UTC. */
function zoneOffset(instant: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(instant))
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(instant / 1000) * 1000
}

/** The instant at which the wall clock of `zone` shows the given time. */
export function zonedTime(fields: [number, number, number, number, number, number], zone: string): number {
  const wall = Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5])
  let guess = wall - zoneOffset(wall, zone)
  guess = wall - zoneOffset(guess, zone)
  return guess
}

/** A wall-clock rendering of an instant in a zone: `2026-02-03 14:00:00`. */
export function formatInZone(instant: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(instant))
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00'
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`
}

function cronOf(expression: string, zone: string): Cron {
  return new Cron(expression, { timezone: zone, paused: true })
}

/** Parses a schedule; throws a UsageError (exit 2) naming the accepted forms. */
export function parseSchedule(raw: string, zone: string, now = Date.now()): Schedule {
  const text = raw.trim().replace(/\s+/g, ' ')
  const lower = text.toLowerCase()
  if (!text) throw new UsageError(`an empty schedule; use ${FORMS}`)

  if (lower.startsWith('every ')) {
    const ms = duration(lower.slice(6).trim())
    if (ms === undefined) throw new UsageError(`"${text}" is not an interval; use ${FORMS}`)
    if (ms < MIN_GAP_MS) throw new UsageError(`"${text}": the shortest interval is 1 minute`)
    return { kind: 'interval', text, display: `every ${lower.slice(6).trim()}`, timezone: zone, intervalMs: ms }
  }
  const delay = duration(lower.startsWith('in ') ? lower.slice(3).trim() : lower)
  if (delay !== undefined) {
    if (delay <= 0) throw new UsageError(`"${text}": the delay must be positive`)
    const runAt = now + delay
    return { kind: 'once', text, display: `once at ${formatInZone(runAt, zone)} (${zone})`, timezone: zone, runAt }
  }
  const iso = ISO.exec(text)
  if (iso) {
    const [, y, mo, d, h = '00', mi = '00', s = '00', offset] = iso
    const fields = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number]
    if (fields[1] < 1 || fields[1] > 12 || fields[2] < 1 || fields[2] > 31 || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) throw new UsageError(`"${text}" is not a valid date and time`)
    const runAt = offset ? Date.parse(text.replace(' ', 'T')) : zonedTime(fields, zone)
    if (!Number.isFinite(runAt)) throw new UsageError(`"${text}" is not a valid date and time`)
    if (runAt < now - PAST_GRACE_MS) throw new UsageError(`"${text}" is in the past (${formatInZone(runAt, zone)} ${zone})`)
    return { kind: 'once', text, display: `once at ${formatInZone(runAt, zone)} (${zone})`, timezone: zone, runAt }
  }
  const fields = text.split(' ')
  const nickname = /^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/i.test(text)
  if (nickname || ((fields.length === 5 || fields.length === 6) && fields.every((f) => CRON_FIELD.test(f)))) {
    let cron: Cron
    try {
      cron = cronOf(text, zone)
    } catch (error) {
      throw new UsageError(`"${text}" is not a valid cron expression: ${(error as Error).message.replace(/^CronPattern: /, '')}`)
    }
    const next = cron.nextRuns(3, new Date(now))
    if (next.length === 0) throw new UsageError(`"${text}" never runs`)
    for (let i = 1; i < next.length; i++) {
      if (next[i]!.getTime() - next[i - 1]!.getTime() < MIN_GAP_MS) throw new UsageError(`"${text}" runs more often than once a minute`)
    }
    return { kind: 'cron', text, display: `cron ${text} (${zone})`, timezone: zone }
  }
  throw new UsageError(`"${text}" is not a schedule; use ${FORMS}`)
}

/** The first run strictly after `after` (epoch ms), or undefined when there is none. `anchor`: the last planned run. */
export function nextRun(schedule: Pick<Schedule, 'kind' | 'text' | 'timezone' | 'intervalMs' | 'runAt'>, after: number, anchor?: number): number | undefined {
  if (schedule.kind === 'once') return schedule.runAt !== undefined && schedule.runAt > after ? schedule.runAt : undefined
  if (schedule.kind === 'interval') {
    const step = schedule.intervalMs!
    if (anchor === undefined) return after + step
    // Keep the rhythm of the original plan: the first anchor + k·step after `after`.
    const k = Math.max(1, Math.floor((after - anchor) / step) + 1)
    return anchor + k * step
  }
  return cronOf(schedule.text, schedule.timezone).nextRun(new Date(after))?.getTime()
}
