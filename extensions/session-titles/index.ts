// Automatic session titles: after the first exchange of an untitled session, a short title from
// the auxiliary model (task `title`, when `auxiliary.title.*` configures one) or the first words of
// the user's message. In the background: a run's answer never waits for it, and shutdown waits at
// most `exit_wait` seconds before writing the fallback instead. A title set by hand is never replaced.

import { defineExtension, errorMessage, linkAbortWithTimeout, MODELS_SERVICE, observeLater, SESSIONS_SERVICE, type ModelsService, type SessionStore } from 'agent/sdk'
import { fallbackTitle, messageText, modelTitle } from './title.ts'

interface TitlesConfig {
  enabled: boolean
  exit_wait: number
  timeout: number
}

/** A session with more stored messages than this is past its first exchange (or too big to read for a title). */
const MAX_MESSAGES = 400
/**
 * Sources left untitled: those that run one prompt again and again (a schedule, a webhook route),
 * where a title would be the same each time, numbered (2), (3) … without telling the sessions
 * apart; and the API server, whose client keeps its own conversation list (a title there is a
 * write per request that nobody reads).
 */
const UNTITLED_SOURCES = new Set(['cron', 'webhook', 'api_server'])
/** How long shutdown waits for the fallback writes once the model calls are stopped. */
const FINAL_WRITE_MS = 2000

interface Job {
  /** Stops the model call: the fallback is written instead. */
  stop(): void
  done: Promise<void>
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())

export default defineExtension<TitlesConfig>({
  name: 'session-titles',
  version: '1.0.0',
  description: 'Titles untitled sessions after their first exchange (auxiliary model, else the first words)',
  dependsOn: ['sessions'],
  configKey: 'session_titles',
  config: {
    type: 'object',
    properties: {
      enabled: { type: 'boolean', default: true },
      exit_wait: { type: 'number', minimum: 0, maximum: 30, default: 1.5 },
      timeout: { type: 'number', minimum: 1, maximum: 120, default: 20 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config as TitlesConfig
    const jobs = new Map<string, Job>()

    /** Whether `auxiliary.title` names a model to ask (provider, model or endpoint). */
    const modelConfigured = () => {
      const aux = api.settings.get<Record<string, unknown>>('auxiliary.title')
      return Boolean(aux && typeof aux === 'object' && ['provider', 'model', 'base_url'].some((k) => typeof aux[k] === 'string' && aux[k] !== ''))
    }

    async function title(sessionId: string, signal: AbortSignal): Promise<void> {
      const store = api.services.get<SessionStore>(SESSIONS_SERVICE)
      if (!store) return
      const session = await store.get(sessionId)
      if (!session || session.title || session.lineage === 'compression' || UNTITLED_SOURCES.has(session.source) || session.messageCount > MAX_MESSAGES) return
      const messages = await store.messages(sessionId)
      const users = messages.filter((m) => m.role === 'user')
      // Only after the first exchange: a title cleared by hand later stays cleared.
      if (users.length !== 1) return
      const question = messageText(users[0])
      const answer = messageText(messages.find((m) => m.role === 'assistant' && messageText(m).trim() !== ''))
      let chosen: string | undefined
      let by: 'model' | 'first_words' = 'model'
      const models = api.services.get<ModelsService>(MODELS_SERVICE)
      if (models && modelConfigured() && !signal.aborted) {
        try {
          chosen = await modelTitle(await models.resolve({ task: 'title' }), question, answer, signal)
          if (!chosen) api.log.debug(`session ${sessionId}: the title model gave no usable title; using the first words`)
        } catch (error) {
          api.log.debug(`session ${sessionId}: no title from the auxiliary model (${errorMessage(error)}); using the first words`)
        }
      }
      if (!chosen) {
        chosen = fallbackTitle(question)
        by = 'first_words'
      }
      if (!chosen) return
      const stored = await store.titleIfUntitled(sessionId, chosen)
      // The title is the user's words: the log says only that it happened.
      if (stored) api.log.debug(`session ${sessionId} titled (${by === 'model' ? 'by the auxiliary model' : 'from the first words'})`)
      // title null: a title set by hand meanwhile was kept.
      observeLater(api, { type: 'session.titled', sessionId, title: stored ?? null, by })
    }

    function start(sessionId: string): void {
      if (jobs.has(sessionId)) return
      const link = linkAbortWithTimeout(config.timeout * 1000, api.signal)
      const done = title(sessionId, link.signal)
        .catch((error) => api.log.warn(`could not title session ${sessionId}: ${errorMessage(error)}`))
        .finally(() => {
          link.dispose()
          jobs.delete(sessionId)
        })
      jobs.set(sessionId, { stop: () => link.abort(new Error('shutting down')), done })
    }

    api.hooks.observe.tap((event) => {
      if (!config.enabled || event.type !== 'run.end' || typeof event.sessionId !== 'string') return
      // Known from the event: no timer, no read (which would also commit queued writes early).
      if (typeof event.source === 'string' && UNTITLED_SOURCES.has(event.source)) return
      start(event.sessionId)
    })

    // Before the stores close (stage < 0): a bounded wait for the model, then the fallback.
    api.hooks.shutdown.tapPromise({ stage: -100 }, async () => {
      if (jobs.size === 0) return
      const all = () => Promise.all([...jobs.values()].map((j) => j.done))
      await Promise.race([all(), sleep(config.exit_wait * 1000)])
      for (const job of jobs.values()) job.stop()
      await Promise.race([all(), sleep(FINAL_WRITE_MS)])
    })
  },
})
