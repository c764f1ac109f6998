// The kernel's logger: one line per event on stderr, prefixed with the extension name, secrets redacted.
// Level from AGENT_LOG_LEVEL (debug, info, warn, error); without it warn, so commands stay quiet, and
// info in long-running modes (the kernel's LogRoute: the gateway, the interactive chat).

import type { Logger } from '../sdk/types.ts'
import { redactE164In, redactSecrets } from '../sdk/redact.ts'

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
export type LogLevel = keyof typeof LEVELS
type Level = LogLevel

export interface LogSink {
  write(line: string): void
}

export interface LoggerOptions {
  /** A function is asked at every line (the level may change while the process runs). */
  level?: Level | (() => Level)
  sink?: LogSink
  /** Extra values to redact (configured secrets). */
  secrets?: () => Iterable<string | undefined>
}

export function createLogger(prefix: string, options: LoggerOptions = {}): Logger {
  const fixed = typeof options.level === 'string' ? LEVELS[options.level] : options.level ? undefined : LEVELS[envLevel() ?? 'warn']
  const threshold = () => fixed ?? LEVELS[(options.level as () => Level)()]
  const sink = options.sink ?? stderrSink
  const emit = (level: Level, message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < threshold()) return
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

const stderrSink: LogSink = { write: (line: string) => process.stderr.write(line + '\n') }

/** AGENT_LOG_LEVEL, when it names a level. */
export function envLevel(env: NodeJS.ProcessEnv = process.env): Level | undefined {
  const value = env.AGENT_LOG_LEVEL?.toLowerCase()
  return value && value in LEVELS ? (value as Level) : undefined
}

/**
 * Where the kernel's log lines go and from which level, changeable while running: a long-running
 * mode lowers the default to info (a reload, a delivery to the log are worth a line there); the
 * interactive chat takes the lines so they print above its prompt instead of over it. An explicit
 * level (AGENT_LOG_LEVEL, the kernel's option) always wins.
 */
export class LogRoute {
  private sink: LogSink
  private defaultLevel: Level = 'warn'

  constructor(
    private readonly explicit: Level | undefined,
    sink: LogSink = stderrSink,
  ) {
    this.sink = sink
  }

  readonly level = (): Level => this.explicit ?? this.defaultLevel
  readonly out: LogSink = { write: (line) => this.sink.write(line) }

  /** Lowers (or raises) the level used when none was set explicitly. */
  setDefaultLevel(level: Level): void {
    this.defaultLevel = level
  }

  /** Sends the lines to `sink` (at `level` unless one was set explicitly) until the returned function runs. */
  take(sink: LogSink, level?: Level): () => void {
    const before = { sink: this.sink, level: this.defaultLevel }
    this.sink = sink
    if (level) this.defaultLevel = level
    return () => {
      if (this.sink !== sink) return
      this.sink = before.sink
      this.defaultLevel = before.level
    }
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch {
    return '[unserialisable]'
  }
}
