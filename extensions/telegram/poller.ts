// Long polling of getUpdates from a resume point, with a clean stop (the request in flight is aborted);
// the first batch (what arrived while the adapter was away) is handed over as a backlog. Telegram's
// failures are handled where they belong: 429 waits the `retry_after` Telegram names; 409 Conflict
// (another getUpdates caller on the same token, or a previous run's poll still open) is retried with
// doubling pauses, then fatal (the adapter reports it once, however often the gateway restarts it); 401 is fatal at once; network and server errors are
// retried with a capped backoff and reported once per outage.

import { AgentError, ConfigError, type Logger } from 'agent/sdk'
import type { Api, GrammyError as GrammyErrorClass } from 'grammy'
import type { Update } from 'grammy/types'

const MAX_BACKOFF_MS = 30_000

/** grammy is typed against the abort-controller shim; it takes the platform's AbortSignal too. */
export type GrammySignal = Parameters<Api['getMe']>[0]
export const grammySignal = (signal: AbortSignal) => signal as unknown as GrammySignal

export const CONFLICT =
  'another program is polling this bot (Telegram 409 Conflict: only one getUpdates caller per bot token): stop the other gateway or bot script that uses TELEGRAM_BOT_TOKEN (or set a webhook elsewhere off), or give this agent its own bot from BotFather'
export const TOKEN_REJECTED = 'Telegram rejected TELEGRAM_BOT_TOKEN (401 Unauthorized): get the current token from BotFather (/token) and update TELEGRAM_BOT_TOKEN'

export interface PollerOptions {
  api: Api
  GrammyError: typeof GrammyErrorClass
  /** Long-poll timeout (seconds) of each getUpdates. */
  timeoutSeconds: number
  /** The first update id wanted (a resume point), or undefined: what Telegram has unconfirmed. */
  offset?: number
  /** 409 answers retried before the conflict is fatal. */
  conflictRetries: number
  /** First pause after a failure (doubling); tests shorten it. */
  retryBaseMs: number
  signal: AbortSignal
  log: Logger
  clean(text: string): string
  onUpdate(update: Update): void
  /**
   * The first batch: what arrived while the adapter was away (read without waiting), handed over at
   * once before polling goes on.
   */
  onBacklog(updates: Update[]): Promise<void>
  /** The first update id not seen yet, when it moves (what was seen is handed to onUpdate/onBacklog). */
  onOffset(offset: number): void
  /**
   * The first update id the adapter still holds back (fragments waiting to be joined), or undefined.
   * While set, polls do not confirm it to Telegram: they look again every `holdPollMs` without
   * waiting, skipping the updates already seen, so a crash meanwhile loses nothing.
   */
  heldFrom(): number | undefined
  holdPollMs: number
  /** getUpdates answered: the first time after a start, or again after failures (`recovered`). */
  onPolling(recovered: boolean): void
  /** A persisting conflict was already reported as fatal: further 409s are logged at debug only. */
  conflictReported(): boolean
  /** Polling cannot go on (token rejected, conflict that stays): called once, then the loop ends. */
  onFatal(error: Error): void
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

const backoff = (attempt: number, base: number) => Math.min(base * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS)

/** Polls until `signal` aborts or a fatal error; never throws. */
export async function poll(options: PollerOptions): Promise<void> {
  const { api, signal, log } = options
  /** The first update id not seen yet. */
  let next = options.offset
  let conflicts = 0
  let failures = 0
  // allowed_updates is remembered by Telegram: sent on the first call only.
  let allowed: Array<'message'> | undefined = ['message']
  let backlog = true
  while (!signal.aborted) {
    let wait = 0
    try {
      if (!backlog && options.heldFrom() !== undefined) {
        // Fragments are held: a short look for the ones that follow instead of a long poll.
        await pause(options.holdPollMs, signal)
        if (signal.aborted) break
      }
      const held = options.heldFrom()
      const offset = held ?? next
      const timeout = backlog || held !== undefined ? 0 : options.timeoutSeconds
      const updates = await api.getUpdates({ ...(offset !== undefined ? { offset } : {}), timeout, ...(allowed ? { allowed_updates: allowed } : {}) }, grammySignal(signal))
      allowed = undefined
      if (conflicts || failures) log.info('Telegram polling works again')
      if (conflicts || failures || backlog) options.onPolling(Boolean(conflicts || failures))
      conflicts = 0
      failures = 0
      // Held updates come again while they are held: those already seen are skipped.
      const fresh = updates.filter((update) => next === undefined || update.update_id >= next)
      if (backlog) {
        backlog = false
        await options.onBacklog(fresh)
      } else {
        for (const update of fresh) {
          try {
            options.onUpdate(update)
          } catch (error) {
            log.warn(`Telegram update ${update.update_id} failed: ${options.clean(String((error as Error)?.message ?? error))}`)
          }
        }
      }
      const last = fresh.at(-1)
      if (last) {
        next = last.update_id + 1
        options.onOffset(next)
      }
      continue
    } catch (error) {
      if (signal.aborted) return
      if (error instanceof options.GrammyError) {
        const code = error.error_code
        if (code === 401 || code === 404) return options.onFatal(new ConfigError(TOKEN_REJECTED, { cause: error }))
        if (code === 409) {
          conflicts++
          if (conflicts > options.conflictRetries) return options.onFatal(new ConfigError(CONFLICT, { cause: error }))
          wait = backoff(conflicts, options.retryBaseMs)
          const line = `Telegram answered 409 Conflict (${options.clean(error.description)}); retrying in ${Math.round(wait / 100) / 10} s (${conflicts} of ${options.conflictRetries})`
          if (options.conflictReported()) log.debug(line)
          else log.warn(line)
        } else if (code === 429) {
          wait = Math.max(1, error.parameters.retry_after ?? 1) * 1000
          log.info(`Telegram rate limit on getUpdates: retrying in ${wait / 1000} s as asked`)
        } else {
          failures++
          wait = backoff(failures, options.retryBaseMs)
          if (failures === 1) log.warn(`getUpdates failed (${code}: ${options.clean(error.description)}); retrying`)
        }
      } else {
        failures++
        wait = backoff(failures, options.retryBaseMs)
        if (failures === 1) log.warn(`cannot reach Telegram (${options.clean(String((error as Error)?.message ?? error))}); retrying with backoff`)
      }
    }
    await pause(wait, signal)
  }
}

/** A start-time failure as the gateway wants it: configuration (not retried) or network (retried). */
export function startError(error: unknown, GrammyError: typeof GrammyErrorClass, clean: (text: string) => string): Error {
  if (error instanceof GrammyError) {
    if (error.error_code === 401 || error.error_code === 404) return new ConfigError(TOKEN_REJECTED, { cause: error })
    if (error.error_code >= 400 && error.error_code < 500 && error.error_code !== 429 && error.error_code !== 409) return new ConfigError(`Telegram refused the bot (${error.error_code}: ${clean(error.description)})`, { cause: error })
    return new AgentError('E_NETWORK', `Telegram answered ${error.error_code}: ${clean(error.description)}`, { cause: error })
  }
  return new AgentError('E_NETWORK', `cannot reach Telegram: ${clean(String((error as Error)?.message ?? error))}`, { cause: error })
}
