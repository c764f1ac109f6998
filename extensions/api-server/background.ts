// Responses created with `background: true`: the run goes on after the answer (status `queued`), its
// stored response moves to `in_progress` and then to its outcome, so GET /v1/responses/{id} polls it;
// POST /v1/responses/{id}/cancel interrupts it (stored as `cancelled`). Runs still count against the
// concurrency cap and are interrupted when the server stops, like any other; they also have a bound
// of their own within the cap (`max_background_runs`, see runs.ts).

import { HttpError, type HttpContext } from 'agent/sdk'
import type { ActiveRun } from './runs.ts'
import type { ApiStore } from './store.ts'

/** Statuses of a response whose run has not ended: it cannot be chained from yet. */
export const BUSY = new Set(['queued', 'in_progress'])

export class BackgroundRuns {
  readonly #active = new Map<string, { run: ActiveRun; done: Promise<void> }>()

  /** Runs `work` detached from the request; `run` is finished when it settles. */
  start(id: string, run: ActiveRun, work: () => Promise<void>): void {
    // `work` stores its own outcome and failures; nothing may escape as an unhandled rejection.
    const done = work().catch(() => undefined).finally(() => {
      this.#active.delete(id)
      run.finish()
    })
    this.#active.set(id, { run, done })
  }

  /** Interrupts a running background response and waits for its run to store the outcome. */
  async cancel(id: string): Promise<boolean> {
    const entry = this.#active.get(id)
    if (!entry) return false
    entry.run.controller.abort(new Error('cancelled by the client'))
    await entry.done
    return true
  }
}

export function cancelResponse(deps: { store: () => ApiStore; background: () => BackgroundRuns }) {
  return async (ctx: HttpContext): Promise<void> => {
    const id = String(ctx.params.id ?? '')
    const cancelled = await deps.background().cancel(id)
    const record = await deps.store().get(id)
    if (!record) throw new HttpError(404, `Response not found: ${id}`, { param: 'response_id', code: 'response_not_found' })
    if (!cancelled && record.response.background !== true) {
      throw new HttpError(400, 'Only a background response can be cancelled', { param: 'response_id', code: 'not_background' })
    }
    // A background response that already ended is answered as it is.
    ctx.body = record.response
  }
}
