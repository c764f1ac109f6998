// Builds the API one extension receives. Registrations made during setup go into a staged record,
// committed to the live registries only if the whole setup succeeded. Registered functions are
// wrapped so the kernel knows when calls into an old version have settled after a hot reload.

import { AgentError, errorMessage } from '../sdk/errors.ts'
import { HOOK_KINDS, type HookHandles, type HookName } from '../sdk/hooks.ts'
import type { Dispose, ExtensionApi, ExtensionInfo, Logger, RegistryHandle, Services, Settings } from '../sdk/types.ts'
import { normaliseTap, type HookTable, type TapRecord } from './hooks.ts'
import type { Registry } from './registry.ts'

export type RegistryKind = 'tools' | 'providers' | 'commands' | 'adapters' | 'endpoints'

export interface KernelRegistries {
  tools: Registry<any>
  providers: Registry<any>
  commands: Registry<any>
  adapters: Registry<any>
  endpoints: Registry<any>
}

export interface ServiceEntry {
  owner: string
  value: unknown
}

/** What a setup produced, before (and after) it is committed. */
export interface StagedRecord {
  registrations: Array<{ kind: RegistryKind; item: any }>
  taps: TapRecord[]
  services: Map<string, unknown>
  subscriptions: Array<{ kind: RegistryKind; listener: () => void }>
  disposers: Dispose[]
  controller: AbortController
  /** Calls into this version that have not returned yet. */
  inflight: number
  settled: Array<() => void>
  open: boolean
}

export function createStaged(): StagedRecord {
  return { registrations: [], taps: [], services: new Map(), subscriptions: [], disposers: [], controller: new AbortController(), inflight: 0, settled: [], open: true }
}

export interface ApiContext {
  owner: string
  version: string
  config: Record<string, unknown>
  log: Logger
  settings: Settings
  registries: KernelRegistries
  hooks: HookTable
  services: Map<string, ServiceEntry>
  extensions(): ExtensionInfo[]
}

/** Wraps a function so calls are counted against the record (used to drain before disposing). */
function tracked<F extends (...args: any[]) => any>(record: StagedRecord, fn: F): F {
  return function (this: unknown, ...args: any[]) {
    record.inflight++
    let result: unknown
    try {
      result = fn.apply(this, args)
    } catch (error) {
      done(record)
      throw error
    }
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      // then with two handlers, not finally: finally chains two more promises per call, and every
      // service call and endpoint request passes here.
      return (result as Promise<unknown>).then(
        (value) => {
          done(record)
          return value
        },
        (error: unknown) => {
          done(record)
          throw error
        },
      )
    }
    done(record)
    return result
  } as F
}

function done(record: StagedRecord): void {
  record.inflight--
  if (record.inflight === 0 && record.settled.length) for (const resolve of record.settled.splice(0)) resolve()
}

/** Resolves when no call into this version is running, or after `timeoutMs`. */
export function whenSettled(record: StagedRecord, timeoutMs: number): Promise<void> {
  if (record.inflight === 0) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs)
    timer.unref?.()
    record.settled.push(() => {
      clearTimeout(timer)
      resolve()
    })
  })
}

const FUNCTION_FIELDS: Record<RegistryKind, string[]> = {
  tools: ['execute'],
  providers: ['create'],
  commands: ['slash'],
  adapters: ['start', 'stop', 'send'],
  endpoints: ['handler'],
}

/**
 * A service as its consumers see it: every method call is counted against the providing version,
 * so a hot reload lets those calls finish before the old version is stopped.
 */
function trackedService(record: StagedRecord, value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  const service = value as object
  const wrapped = new WeakMap<object, unknown>()
  // The proxy's target is what inspection tools see (Node 22's assert and util read it), so it is the
  // service itself; a frozen service gets an exact mirror instead, because Proxy invariants forbid
  // handing out wrapped methods for properties that are frozen on the target.
  const target = Object.isFrozen(service) ? Object.create(Object.getPrototypeOf(service), Object.fromEntries(Reflect.ownKeys(service).map((key) => [key, { ...Reflect.getOwnPropertyDescriptor(service, key), configurable: true }]))) : service
  return new Proxy(target, {
    get(_target, property) {
      // The service as receiver keeps getters and private fields of class instances working.
      const member = Reflect.get(service, property, service)
      // Only the service's own methods are calls into the extension; `constructor` and what every
      // object inherits stay as they are (identity checks and deep equality rely on them).
      if (typeof member !== 'function' || property === 'constructor' || (Object.prototype as Record<PropertyKey, unknown>)[property] === member) return member
      // A class's methods (on its prototype) face no proxy invariant: the wrapper made once is
      // handed out without asking for a descriptor on every call.
      const known = wrapped.get(member)
      if (known !== undefined && !Object.hasOwn(target, property)) return known
      const own = Reflect.getOwnPropertyDescriptor(target, property)
      if (own && !own.configurable && own.writable === false) return member
      // Keyed by the method itself, so a service that swaps a method is never served the old one.
      let fn = wrapped.get(member)
      if (!fn) wrapped.set(member, (fn = tracked(record, member.bind(service))))
      return fn
    },
    set: (_target, property, v) => Reflect.set(service, property, v, service),
  })
}

function wrapItem(kind: RegistryKind, record: StagedRecord, item: any): any {
  if (typeof item !== 'object' || item === null) throw new AgentError('E_STATE', `${kind}.register needs an object`)
  const copy = { ...item }
  for (const field of FUNCTION_FIELDS[kind]) if (typeof copy[field] === 'function') copy[field] = tracked(record, copy[field].bind(item))
  if (kind === 'commands' && copy.cli?.run) copy.cli = { ...copy.cli, run: tracked(record, copy.cli.run) }
  return Object.freeze(copy)
}

export function serviceLookup(services: Map<string, ServiceEntry>): Omit<Services, 'provide'> {
  return {
    get: <T>(name: string) => services.get(name)?.value as T | undefined,
    has: (name: string) => services.has(name),
    require: <T>(name: string) => {
      const entry = services.get(name)
      if (!entry) throw new AgentError('E_DEPENDENCY', `service "${name}" is not available (is the extension that provides it loaded?)`)
      return entry.value as T
    },
  }
}

/** Hook handles bound to an owner: taps go to the staged record, calls go to the live table. */
export function hookHandles(hooks: HookTable, onTap: ((record: TapRecord) => void) | undefined, owner: string, record?: StagedRecord): HookHandles {
  const handles = {} as Record<HookName, unknown>
  for (const name of Object.keys(HOOK_KINDS) as HookName[]) {
    const tap = (type: 'sync' | 'promise') => (optionsOrFn: any, maybeFn?: any) => {
      if (!onTap) throw new AgentError('E_STATE', `hooks.${name}: only extensions can tap hooks`)
      const tapRecord = normaliseTap(name, owner, type, optionsOrFn, maybeFn)
      if (record) tapRecord.fn = tracked(record, tapRecord.fn)
      onTap(tapRecord)
    }
    handles[name] = Object.freeze({
      tap: tap('sync'),
      tapPromise: tap('promise'),
      promise: (...args: any[]) => (hooks.current()[name].promise as (...a: any[]) => Promise<any>)(...args),
    })
  }
  return Object.freeze(handles) as unknown as HookHandles
}

export function createExtensionApi(ctx: ApiContext, record: StagedRecord): ExtensionApi<any> {
  const assertOpen = (what: string) => {
    if (!record.open) throw new AgentError('E_STATE', `extension "${ctx.owner}": ${what} is only legal during setup`)
  }

  const handle = (kind: RegistryKind): RegistryHandle<any> => {
    const registry = ctx.registries[kind]
    return Object.freeze({
      register(item: any) {
        assertOpen(`${kind}.register`)
        // Names staged by this setup count as taken too.
        const staged = new Map<string, string>()
        for (const r of record.registrations) if (r.kind === kind) staged.set(registryKey(registry, r.item), ctx.owner)
        registry.assertFree(ctx.owner, item)
        if (staged.has(registryKey(registry, item))) {
          throw new AgentError('E_DUPLICATE', `${registry.kind} "${registryKey(registry, item)}" is registered twice by extension "${ctx.owner}"`)
        }
        record.registrations.push({ kind, item: wrapItem(kind, record, item) })
      },
      get: (name: string) => registry.get(name),
      list: () => registry.list(),
      entries: () => registry.entries(),
      subscribe(listener: () => void) {
        const entry = { kind, listener }
        record.subscriptions.push(entry)
        const unsubscribe = registry.subscribe(listener)
        return () => {
          unsubscribe()
          record.subscriptions.splice(record.subscriptions.indexOf(entry), 1)
        }
      },
    })
  }

  const lookup = serviceLookup(ctx.services)
  const services: Services = {
    provide(name, value) {
      assertOpen('services.provide')
      const holder = ctx.services.get(name)
      if ((holder && holder.owner !== ctx.owner) || record.services.has(name)) {
        throw new AgentError('E_DUPLICATE', `service "${name}" of extension "${ctx.owner}" is already provided by extension "${holder?.owner ?? ctx.owner}"`)
      }
      record.services.set(name, trackedService(record, value))
    },
    // During setup, a service this very setup provides is visible to it.
    get: <T>(name: string) => (record.services.has(name) ? (record.services.get(name) as T) : lookup.get<T>(name)),
    has: (name) => record.services.has(name) || lookup.has(name),
    require: <T>(name: string) => (record.services.has(name) ? (record.services.get(name) as T) : lookup.require<T>(name)),
  }

  return Object.freeze({
    name: ctx.owner,
    version: ctx.version,
    config: Object.freeze(ctx.config),
    log: ctx.log,
    signal: record.controller.signal,
    onDispose(fn: Dispose) {
      // Registered once this version was torn down (set-up work still under way when it was unloaded
      // or the process stopped, such as a watcher opened by a ready hook): nothing would run it later.
      if (record.controller.signal.aborted) {
        Promise.resolve()
          .then(fn)
          .catch((error: unknown) => ctx.log.warn(`a disposer failed: ${errorMessage(error)}`))
        return
      }
      record.disposers.push(fn)
    },
    settings: ctx.settings,
    tools: handle('tools'),
    providers: handle('providers'),
    commands: handle('commands'),
    adapters: handle('adapters'),
    endpoints: handle('endpoints'),
    services,
    hooks: hookHandles(
      ctx.hooks,
      (tap) => {
        assertOpen(`hooks.${tap.hook}.tap`)
        record.taps.push(tap)
      },
      ctx.owner,
      record,
    ),
    extensions: ctx.extensions,
  })
}

function registryKey(registry: Registry<any>, item: any): string {
  return registry.keyOf(item)
}
