// The kernel's logger: one line per event on stderr, prefixed with the extension name, secrets redacted.
// Level from AGENT_LOG_LEVEL (debug, info, warn, error; default warn so commands stay quiet).

import type { Logger } from '../sdk/types.ts'
import { redactE164In, redactSecrets } from '../sdk/redact.ts'

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
type Level = keyof typeof LEVELS

export interface LogSink {
  write(line: string): void
}

export interface LoggerOptions {
  level?: Level
  sink?: LogSink
  /** Extra values to redact (configured secrets). */
  secrets?: () => Iterable<string | undefined>
}

export function createLogger(prefix: string, options: LoggerOptions = {}): Logger {
  const threshold = LEVELS[options.level ?? envLevel()]
  const sink = options.sink ?? { write: (line: string) => process.stderr.write(line + '\n') }
  const emit = (level: Level, message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < threshold) return
    const extra = fields && Object.keys(fields).length > 0 ? ' ' + safeJson(fields) : ''
    // Every line: configured secrets, secret-shaped strings and phone numbers never reach a log.
    sink.write(redactE164In(redactSecrets(`[${prefix}] ${level}: ${message}${extra}`, options.secrets?.() ?? [])))
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  }
}

function envLevel(): Level {
  const value = process.env.AGENT_LOG_LEVEL?.toLowerCase()
  return value && value in LEVELS ? (value as Level) : 'warn'
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch {
    return '[unserialisable]'
  }
}
