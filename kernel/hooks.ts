// The one hook table. Taps are kept in a list (tapable has no untap); the tapable hooks are rebuilt
// from that list whenever an owner's taps are removed. Callers always go through `current()`, so a
// rebuild is seen at the next call. Errors from a tap are wrapped with the hook and extension names;
// `observe` taps never throw into the caller.

import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable'
import { AgentError, errorMessage } from '../sdk/errors.ts'
import { HOOK_KINDS, type HookName, type HookSignatures, type TapOptions } from '../sdk/hooks.ts'
import type { Logger } from '../sdk/types.ts'

const ARG_NAMES: Record<HookName, string[]> = {
  ready: ['context'],
  shutdown: ['context'],
  resolveModel: ['request'],
  beforeModelRequest: ['request', 'context'],
  beforeToolCall: ['event'],
  afterToolCall: ['outcome', 'event'],
  inboundMessage: ['message'],
  observe: ['event'],
}

export interface TapRecord {
  hook: HookName
  owner: string
  type: 'sync' | 'promise'
  stage: number
  fn: (...args: any[]) => any
}

type AnyHook = {
  tap(options: { name: string; stage?: number }, fn: (...args: any[]) => any): void
  tapPromise(options: { name: string; stage?: number }, fn: (...args: any[]) => Promise<any>): void
  promise(...args: any[]): Promise<any>
}

/** The tapable hooks of one build, frozen. */
export type BuiltHooks = { readonly [N in HookName]: { promise(...args: HookSignatures[N][0]): Promise<HookSignatures[N][1]> } }

function createHook(name: HookName): AnyHook {
  // tapable types the argument-name list by arity; ours varies per hook, so it is passed untyped.
  const args = ARG_NAMES[name] as any
  switch (HOOK_KINDS[name]) {
    case 'series':
      return new AsyncSeriesHook(args) as unknown as AnyHook
    case 'bail':
      return new AsyncSeriesBailHook(args) as unknown as AnyHook
    case 'waterfall':
      return new AsyncSeriesWaterfallHook(args) as unknown as AnyHook
    case 'parallel':
      return new ParallelHook()
  }
}

const DONE = Promise.resolve()
const isThenable = (value: unknown): value is PromiseLike<unknown> => !!value && typeof (value as PromiseLike<unknown>).then === 'function'

/**
 * tapable's AsyncParallelHook, for the one parallel hook (`observe`, several calls per agent run):
 * every tap is called, and the call settles once all have. tapable's generated code makes a promise
 * and a closure per tap on every call; here taps that answer at once (the wrapped observers return
 * DONE) cost nothing, and only a call with a tap still running waits on Promise.all.
 */
class ParallelHook implements AnyHook {
  readonly #taps: Array<{ stage: number; fn: (...args: any[]) => unknown }> = []

  tap(options: { stage?: number }, fn: (...args: any[]) => unknown): void {
    // By stage, then in the order tapped (as tapable orders them).
    const stage = options.stage ?? 0
    const at = this.#taps.findIndex((t) => t.stage > stage)
    this.#taps.splice(at === -1 ? this.#taps.length : at, 0, { stage, fn })
  }

  tapPromise(options: { stage?: number }, fn: (...args: any[]) => Promise<unknown>): void {
    this.tap(options, fn)
  }

  promise(...args: any[]): Promise<void> {
    let running: unknown[] | undefined
    for (const { fn } of this.#taps) {
      const out = fn(...args)
      if (out !== DONE) (running ??= []).push(out)
    }
    return running ? Promise.all(running).then(() => undefined) : DONE
  }
}

export class HookTable {
  private taps: TapRecord[] = []
  private built: BuiltHooks
  private readonly log: Logger

  constructor(log: Logger) {
    this.log = log
    this.built = this.build()
  }

  current(): BuiltHooks {
    return this.built
  }

  /** Adds taps (a committed extension's) to the live table without a rebuild. */
  add(records: readonly TapRecord[]): void {
    this.taps.push(...records)
    for (const record of records) this.attach(this.built as unknown as Record<HookName, AnyHook>, record)
  }

  /** Removes an owner's taps and rebuilds the table from the survivors. */
  removeOwner(owner: string): void {
    const before = this.taps.length
    this.taps = this.taps.filter((t) => t.owner !== owner)
    if (this.taps.length !== before) this.built = this.build()
  }

  /** Replaces an owner's taps in one rebuild (hot reload swap). */
  replaceOwner(owner: string, records: readonly TapRecord[]): void {
    this.taps = [...this.taps.filter((t) => t.owner !== owner), ...records]
    this.built = this.build()
  }

  tapsOf(owner: string): TapRecord[] {
    return this.taps.filter((t) => t.owner === owner)
  }

  private build(): BuiltHooks {
    const table = {} as Record<HookName, AnyHook>
    for (const name of Object.keys(HOOK_KINDS) as HookName[]) table[name] = createHook(name)
    for (const record of this.taps) this.attach(table, record)
    return Object.freeze(table) as unknown as BuiltHooks
  }

  private attach(table: Record<HookName, AnyHook>, record: TapRecord): void {
    const hook = table[record.hook]
    const options = { name: record.owner, stage: record.stage }
    const wrap = (error: unknown) =>
      new AgentError('E_HOOK', `hook ${record.hook}: tap of extension "${record.owner}" failed: ${errorMessage(error)}`, { cause: error })
    // Plain functions, not async ones: a tap that answers at once (most do) costs one settled
    // promise instead of an async frame and an await; these run several times per agent run.
    if (record.hook === 'observe') {
      // Observers must never disturb the run: report and swallow.
      const report = (error: unknown) => void this.log.warn(wrap(error).message)
      hook.tapPromise(options, (...args) => {
        try {
          const out = record.fn(...args)
          return isThenable(out) ? Promise.resolve(out).then(undefined, report) : DONE
        } catch (error) {
          report(error)
          return DONE
        }
      })
      return
    }
    // A tap's failure names the hook and the extension (once: a nested hook's error is kept).
    const failure = (error: unknown) => (AgentError.isInstance(error) && error.code === 'E_HOOK' ? error : wrap(error))
    const rethrow = (error: unknown) => {
      throw failure(error)
    }
    hook.tapPromise(options, (...args) => {
      try {
        const out = record.fn(...args)
        return isThenable(out) ? Promise.resolve(out).then(undefined, rethrow) : Promise.resolve(out)
      } catch (error) {
        return Promise.reject(failure(error))
      }
    })
  }
}

export function normaliseTap(
  hook: HookName,
  owner: string,
  type: 'sync' | 'promise',
  optionsOrFn: TapOptions | ((...args: any[]) => any),
  maybeFn?: (...args: any[]) => any,
): TapRecord {
  const fn = typeof optionsOrFn === 'function' ? optionsOrFn : maybeFn
  const options = typeof optionsOrFn === 'function' ? {} : optionsOrFn
  if (typeof fn !== 'function') throw new AgentError('E_STATE', `hooks.${hook}.tap of "${owner}" needs a function`)
  return { hook, owner, type, stage: options.stage ?? 0, fn }
}
