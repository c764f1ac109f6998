// Schedule parsing: every accepted form, the configured time zone for times without an offset
// (across a DST change), the interval rhythm, and clear refusals.

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AgentError } from 'agent/sdk'
import { formatInZone, nextRun, parseSchedule } from '../../../extensions/cron/schedule.ts'

const NOW = Date.parse('2026-03-01T12:00:00Z')
const refused = (text: string, pattern: RegExp) =>
  assert.throws(() => parseSchedule(text, 'Europe/Paris', NOW), (e: unknown) => AgentError.isInstance(e) && e.exitCode === 2 && pattern.test(e.message), text)

describe('cron schedules', () => {
  it('reads intervals (case-insensitive) and delays', () => {
    const every = parseSchedule('EVERY 2h', 'UTC', NOW)
    assert.deepEqual([every.kind, every.intervalMs, every.display], ['interval', 7_200_000, 'every 2h'])
    assert.equal(parseSchedule('every 30 minutes', 'UTC', NOW).intervalMs, 1_800_000)
    const delay = parseSchedule('30m', 'UTC', NOW)
    assert.deepEqual([delay.kind, delay.runAt], ['once', NOW + 1_800_000])
    assert.equal(parseSchedule('in 1d', 'UTC', NOW).runAt, NOW + 86_400_000)
  })

  it('reads a time without an offset in the configured zone, and one with an offset as given', () => {
    // Paris is UTC+1 in winter, UTC+2 after the change on 29 March 2026.
    assert.equal(parseSchedule('2026-03-02T14:00', 'Europe/Paris', NOW).runAt, Date.parse('2026-03-02T13:00:00Z'))
    assert.equal(parseSchedule('2026-04-02T14:00', 'Europe/Paris', NOW).runAt, Date.parse('2026-04-02T12:00:00Z'))
    assert.equal(parseSchedule('2026-03-02T14:00', 'America/New_York', NOW).runAt, Date.parse('2026-03-02T19:00:00Z'))
    assert.equal(parseSchedule('2026-03-02T14:00Z', 'Europe/Paris', NOW).runAt, Date.parse('2026-03-02T14:00:00Z'))
    assert.equal(parseSchedule('2026-03-02T14:00+05:30', 'Europe/Paris', NOW).runAt, Date.parse('2026-03-02T08:30:00Z'))
    assert.equal(formatInZone(Date.parse('2026-03-02T13:00:00Z'), 'Europe/Paris'), '2026-03-02 14:00:00')
  })

  it('keeps a one-shot a little in the past (within a minute), refuses an older one', () => {
    assert.equal(parseSchedule('2026-03-01T12:59:30', 'Europe/Paris', NOW).kind, 'once')
    refused('2026-03-01T12:00', /is in the past \(2026-03-01 12:00:00 Europe\/Paris\)/)
  })

  it('reads cron expressions in the zone, and nicknames', () => {
    const weekday = parseSchedule('0 9 * * 1-5', 'Europe/Paris', NOW)
    assert.equal(weekday.kind, 'cron')
    // Sunday 1 March → Monday 2 March 09:00 Paris = 08:00 UTC.
    assert.equal(nextRun(weekday, NOW), Date.parse('2026-03-02T08:00:00Z'))
    assert.equal(parseSchedule('@daily', 'UTC', NOW).kind, 'cron')
  })

  it('keeps the rhythm of an interval after a late run', () => {
    const every = parseSchedule('every 5m', 'UTC', NOW)
    assert.equal(nextRun(every, NOW, NOW - 17 * 60_000), NOW + 3 * 60_000)
    assert.equal(nextRun(every, NOW), NOW + 5 * 60_000)
  })

  it('refuses what is not a schedule, with the accepted forms', () => {
    refused('whenever', /is not a schedule; use a cron expression .*an interval .*a delay .*a time/)
    refused('every fortnight', /is not an interval/)
    refused('every 30s', /is not an interval/)
    refused('every 0.5m', /the shortest interval is 1 minute/)
    refused('61 * * * *', /is not a valid cron expression: Invalid value for minute: 61/)
    refused('0 0 31 2 *', /never runs/)
    refused('*/10 * * * * *', /runs more often than once a minute/)
    refused('2026-13-01T10:00', /is not a valid date and time/)
    refused('', /an empty schedule/)
  })
})
