// What MCP servers offered when last seen (tools, prompts, whether they have resources, their
// instructions), in <agent_home>/mcp/tools/<server>.json. Setup registers bridged tools and prompt
// commands from these files (registration is legal during setup only); a connect that finds
// something different rewrites the file and asks the kernel to reload this extension.

import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'

export interface CachedTool {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
  /** `required`: the server runs it only as a task (the SDK's task support calls it). */
  taskSupport?: 'required'
}

export interface CachedPrompt {
  name: string
  description?: string
  arguments?: Array<{ name: string; description?: string; required?: boolean }>
}

/** What one connect found. */
export interface ServerSnapshot {
  tools: CachedTool[]
  prompts?: CachedPrompt[]
  /** The server offers resources (the resource tools are registered). */
  resources?: boolean
  instructions?: string
}

export interface ToolCache extends ServerSnapshot {
  server: string
  updated_at: string
}

export const cacheDir = (home: string) => join(home, 'mcp', 'tools')
const cacheFile = (home: string, server: string) => join(cacheDir(home), `${server}.json`)

export function readCache(home: string, server: string): ToolCache | undefined {
  try {
    const parsed = JSON.parse(readFileSync(cacheFile(home, server), 'utf8')) as ToolCache
    return Array.isArray(parsed.tools) ? parsed : undefined
  } catch {
    return undefined
  }
}

/** A fingerprint of a snapshot: same tools (descriptions, schemas), prompts, resources and instructions give the same value. */
export function fingerprint(snapshot: ServerSnapshot): string {
  const byName = <T extends { name: string }>(list: readonly T[] = []) => [...list].sort((a, b) => a.name.localeCompare(b.name))
  const canonical = [byName(snapshot.tools).map((t) => [t.name, t.description ?? '', stable(t.inputSchema)]), stable(byName(snapshot.prompts)), Boolean(snapshot.resources), snapshot.instructions ?? '']
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex')
}

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable)
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, stable((value as Record<string, unknown>)[k])]))
  return value
}

/** Writes the snapshot; returns whether it differs from what was cached. */
export async function writeCache(home: string, server: string, snapshot: ServerSnapshot): Promise<boolean> {
  const previous = readCache(home, server)
  const changed = !previous || fingerprint(previous) !== fingerprint(snapshot)
  if (changed) {
    mkdirSync(cacheDir(home), { recursive: true, mode: 0o700 })
    await writeFileAtomic(cacheFile(home, server), JSON.stringify({ server, updated_at: new Date().toISOString(), ...snapshot } satisfies ToolCache, null, 2) + '\n', { mode: 0o600 })
  }
  return changed
}

export function removeCache(home: string, server: string): void {
  rmSync(cacheFile(home, server), { force: true })
}
