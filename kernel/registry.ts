// An owner-tagged registry of named things. Names (and aliases) are unique across owners; a clash is
// an error naming both owners. Unloading an extension is deleteByOwner.

import { AgentError } from '../sdk/errors.ts'

interface Entry<T> {
  owner: string
  value: T
}

export class Registry<T> {
  readonly kind: string
  private readonly byName = new Map<string, Entry<T>>()
  private readonly aliasOf = new Map<string, string>()
  readonly keyOf: (item: T) => string
  private readonly aliasesOf: (item: T) => readonly string[]
  private readonly listeners = new Set<() => void>()
  /** entries() as of the last change: every run asks for the tools, so they are not copied each time. */
  private snapshot: ReadonlyArray<Readonly<Entry<T>>> | undefined

  constructor(kind: string, keyOf: (item: T) => string, aliasesOf: (item: T) => readonly string[] = () => []) {
    this.kind = kind
    this.keyOf = keyOf
    this.aliasesOf = aliasesOf
  }

  /** The owner holding a name or alias, if any. */
  ownerOf(name: string): string | undefined {
    const canonical = this.aliasOf.get(name) ?? name
    return this.byName.get(canonical)?.owner
  }

  /** Throws if `owner` may not take the item's name or aliases (ignoring names it already owns). */
  assertFree(owner: string, item: T, alsoTaken: ReadonlyMap<string, string> = new Map()): void {
    for (const name of [this.keyOf(item), ...this.aliasesOf(item)]) {
      const holder = this.ownerOf(name) ?? alsoTaken.get(name)
      if (holder !== undefined && holder !== owner) {
        throw new AgentError('E_DUPLICATE', `${this.kind} "${name}" of extension "${owner}" is already registered by extension "${holder}"`)
      }
    }
  }

  add(owner: string, item: T): void {
    this.assertFree(owner, item)
    const key = this.keyOf(item)
    const previous = this.byName.get(key)
    if (previous) this.removeKey(key)
    this.byName.set(key, { owner, value: item })
    this.snapshot = undefined
    for (const alias of this.aliasesOf(item)) this.aliasOf.set(alias, key)
    this.changed()
  }

  get(name: string): T | undefined {
    return this.byName.get(this.aliasOf.get(name) ?? name)?.value
  }

  list(): T[] {
    return [...this.byName.values()].map((e) => e.value)
  }

  /** A new array each call (callers may sort it); the entries in it are shared and frozen. */
  entries(): Array<{ owner: string; value: T }> {
    this.snapshot ??= [...this.byName.values()].map((e) => Object.freeze({ owner: e.owner, value: e.value }))
    return [...this.snapshot]
  }

  /** Removes everything an owner registered; returns how many entries went. */
  deleteByOwner(owner: string, notify = true): number {
    let removed = 0
    for (const [key, entry] of [...this.byName]) {
      if (entry.owner !== owner) continue
      this.removeKey(key)
      removed++
    }
    if (removed > 0 && notify) this.changed()
    return removed
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  unsubscribe(listener: () => void): void {
    this.listeners.delete(listener)
  }

  /** Tells subscribers the contents changed (called once per batch by the kernel on swaps). */
  changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener()
      } catch {
        // A subscriber's failure must not break registration; subscribers report their own errors.
      }
    }
  }

  private removeKey(key: string): void {
    const entry = this.byName.get(key)
    if (!entry) return
    for (const alias of this.aliasesOf(entry.value)) this.aliasOf.delete(alias)
    this.byName.delete(key)
    this.snapshot = undefined
  }
}
