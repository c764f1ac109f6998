// The live access-control state of a running agent: the capability files of
// <agent_home>/capabilities resolved against the built-in manifests, the plugins' permission files
// (<agent_home>/capabilities/plugins) and what extensions expose or contribute. Reloaded when a file changes or the command layer does. A set with problems is refused
// as a whole and the last good state stays (fail closed: before any good state, nothing is allowed).

import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import {
  appManifest,
  buildManifests,
  checkCapabilityFiles,
  coreManifests,
  openerManifest,
  formatOf,
  formatProblem,
  ResolvedAcl,
  type CapabilityFileText,
  type CheckResult,
  type CommandLayer,
  type Logger,
  type PluginManifestsResult,
  type Target,
} from 'agent/sdk'
import { readPermissionFiles } from './plugin-files.ts'

// Loaded on first use with Node's own require (ESM packages load natively on Node ≥ 20.19).
const requireNative = createRequire(import.meta.url)

/** The capability files of a folder (top level, `.json` and `.toml`, dotfiles skipped), sorted. */
export function listCapabilityFiles(folder: string): string[] {
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  return names.filter((n) => !n.startsWith('.') && formatOf(n) !== undefined).sort().map((n) => join(folder, n))
}

/** Reads files; an unreadable one becomes a parse problem through an empty text marker. */
export function readCapabilityFiles(files: readonly string[]): { texts: CapabilityFileText[]; unreadable: Array<{ file: string; message: string }> } {
  const texts: CapabilityFileText[] = []
  const unreadable: Array<{ file: string; message: string }> = []
  for (const file of files) {
    try {
      texts.push({ file, text: readFileSync(file, 'utf8') })
    } catch (error) {
      const e = error as NodeJS.ErrnoException
      unreadable.push({ file, message: e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.message })
    }
  }
  return { texts, unreadable }
}

export interface LoadedManifests extends PluginManifestsResult {
  /** The capability folders whose `plugins/` were read. */
  folders: string[]
}

/**
 * Manifests: core, opener, the app commands exposed now plus any extra names (CLI `--app-command`),
 * and the plugins' permissions: files under each folder's `plugins/` and extensions' contributions.
 */
export function currentManifests(layer: CommandLayer, folders: readonly string[], extraCommands: readonly string[] = []): LoadedManifests {
  const exposed = layer.commands()
  const declared = layer.declared()
  const commands = [...new Set([...exposed.map((e) => e.command.name), ...extraCommands])]
  const app = appManifest({
    commands,
    defaultCommands: exposed.filter((e) => e.command.default).map((e) => e.command.name),
    permissions: declared.permissions,
    sets: declared.sets,
  })
  const files = readPermissionFiles(folders)
  const contributed = layer.contributions().map((c) => ({ plugin: c.plugin, file: `extension ${c.owner}`, document: c.document }))
  const built = buildManifests([...coreManifests(), openerManifest(), app], [...files.sources, ...contributed])
  return { ...built, problems: [...files.problems, ...built.problems], folders: [...folders] }
}

/** Checks files as a set against the manifests (unreadable files and the manifests' own problems count). */
export function checkFiles(files: readonly string[], loaded: LoadedManifests): CheckResult {
  const { texts, unreadable } = readCapabilityFiles(files)
  const result = checkCapabilityFiles(texts, loaded.manifests)
  result.problems.unshift(...loaded.problems, ...unreadable.map((u) => ({ kind: 'parse' as const, file: u.file, message: `cannot read the file: ${u.message}` })))
  result.warnings.unshift(...loaded.warnings)
  return result
}

export interface AclSnapshot {
  acl: ResolvedAcl
  files: string[]
  loadedAt: number
}

export class AclState {
  private good: AclSnapshot | undefined
  private lastProblems: string[] = []
  private loading: Promise<void> | undefined
  private stale = false

  constructor(
    private readonly folder: string,
    private readonly layer: CommandLayer,
    private readonly platform: Target,
    private readonly log: Logger,
  ) {}

  /** The state calls are checked against; an empty (deny-all) ACL until a good set has loaded. */
  async current(): Promise<ResolvedAcl> {
    if (this.stale) {
      this.stale = false
      await this.reload()
    }
    if (!this.good) await (this.loading ??= this.reload())
    return this.good?.acl ?? new ResolvedAcl([], { platform: this.platform, manifests: currentManifests(this.layer, []).manifests })
  }

  /** The command layer changed: resolve again before the next call (lazily, so setups stay I/O-free). */
  invalidate(): void {
    if (this.good || this.loading) this.stale = true
  }

  problems(): string[] {
    return [...this.lastProblems]
  }

  /** Re-reads every file; swaps the state in only if the whole set checks. */
  async reload(): Promise<void> {
    const loaded = currentManifests(this.layer, [this.folder])
    const files = listCapabilityFiles(this.folder)
    const result = checkFiles(files, loaded)
    for (const warning of result.warnings) this.log.warn(formatProblem(warning))
    if (result.problems.length > 0) {
      this.lastProblems = result.problems.map(formatProblem)
      for (const line of this.lastProblems) this.log.error(line)
      this.log.error(this.good ? 'capability files have problems; keeping the previous capabilities' : 'capability files have problems; no frontend command is allowed until they are fixed')
      return
    }
    this.lastProblems = []
    this.good = { acl: new ResolvedAcl(result.capabilities, { platform: this.platform, manifests: loaded.manifests }), files, loadedAt: Date.now() }
    this.log.info(`capabilities loaded: ${result.capabilities.length} from ${files.length} file(s)`)
  }

  /** Watches the folder (chokidar, loaded here) and reloads on changes; returns the stop function. */
  async watch(debounceMs = 80): Promise<() => Promise<void>> {
    mkdirSync(this.folder, { recursive: true })
    const { watch } = requireNative('chokidar') as typeof import('chokidar')
    let timer: NodeJS.Timeout | undefined
    const schedule = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        this.reload().catch((error: Error) => this.log.error(`capability reload failed: ${error.message}`))
      }, debounceMs)
    }
    // Deep enough for plugins/<plugin>/permissions/<sub>/<file>.
    const watcher = watch(this.folder, { ignoreInitial: true, depth: 6 })
    watcher.on('all', (_event: string, path: string) => {
      if (formatOf(path) !== undefined) schedule()
    })
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
    return async () => {
      clearTimeout(timer)
      await watcher.close()
    }
  }
}
