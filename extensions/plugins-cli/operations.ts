// install / update / remove of plugin packages in <agent_home>/plugins. Order of an install: pack
// (no scripts) → read the manifest from the tarball → install that exact tarball (no scripts) →
// check the installed folder → load it through the kernel (`extensions` service) → record it. A
// plugin that fails to load is rolled back (the previous version restored) and the error reported.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join, sep } from 'node:path'
import { AgentError, UsageError, type ExtensionInfo, type ExtensionsService, type Logger } from 'agent/sdk'
import { candidateNames, checkManifest, folderManifest, type PluginManifest } from './manifest.ts'
import { ensurePluginsProject, npm, pack, parseSpec, type PluginSpec } from './npm.ts'
import { findRecord, readRecords, writeRecords, type PluginRecord } from './records.ts'
import { readTarball } from './tarball.ts'

export interface PluginsContext {
  home: string
  pluginsDir: string
  cwd: string
  timeoutMs: number
  signal?: AbortSignal
  extensions: ExtensionsService
  log: Logger
}

export interface InstallOptions {
  allowScripts?: boolean
  link?: boolean
}

export interface InstallResult {
  record: PluginRecord
  loaded: ExtensionInfo[]
  updated: boolean
  previousVersion?: string
  /** update only: nothing changed at the source. */
  upToDate?: boolean
}

export const installedDir = (ctx: PluginsContext, name: string) => join(ctx.pluginsDir, 'node_modules', ...name.split('/'))
const packsDir = (ctx: PluginsContext) => join(ctx.pluginsDir, '.packs')
const npmOptions = (ctx: PluginsContext) => ({ cwd: ctx.pluginsDir, timeoutMs: ctx.timeoutMs, signal: ctx.signal })

/** Loads (or reloads) the extensions of an installed package; returns their state after. */
async function load(ctx: PluginsContext, names: string[], dir: string): Promise<ExtensionInfo[]> {
  for (const name of names) await ctx.extensions.reload(name)
  return ctx.extensions.list().filter((info) => info.path === dir || info.path.startsWith(dir + sep))
}

/** Names of the extensions already loaded from a package folder (an update reloads these), if any. */
function loadedFrom(ctx: PluginsContext, dir: string): string[] | undefined {
  const names = ctx.extensions.list().filter((info) => info.path === dir && info.state === 'loaded').map((info) => info.name)
  return names.length ? names : undefined
}

/** An extension name the plugin would take that is already used by something else. */
function clash(ctx: PluginsContext, manifest: PluginManifest, dir: string): string | undefined {
  for (const name of candidateNames(manifest)) {
    const other = ctx.extensions.list().find((info) => info.name === name && info.path !== dir)
    if (other) return `the plugin's extension name "${name}" is taken by the ${other.source} extension at ${other.path}`
  }
  return undefined
}

export async function install(ctx: PluginsContext, specText: string, options: InstallOptions = {}, previous?: PluginRecord): Promise<InstallResult> {
  const spec: PluginSpec = previous ? { kind: previous.kind === 'link' ? 'path' : previous.kind, target: previous.source, original: previous.source } : parseSpec(specText, ctx.cwd, ctx.home)
  const link = options.link ?? previous?.kind === 'link'
  if (link && spec.kind !== 'path') throw new UsageError('--link needs a local folder')
  ensurePluginsProject(ctx.pluginsDir)
  const scripts = options.allowScripts ? [] : ['--ignore-scripts']
  const staging = mkdtempSync(join(ctx.pluginsDir, '.staging-'))
  try {
    let manifest: PluginManifest
    let dependency: string
    let integrity: string | undefined
    if (link) {
      manifest = folderManifest(spec.target)
      dependency = `file:${spec.target}`
    } else {
      const packed = await pack(spec, staging, npmOptions(ctx))
      const tarball = readTarball(packed.file)
      const files = new Set(tarball.files)
      manifest = checkManifest(tarball.packageJson, (rel) => files.has(rel), spec.original)
      if (previous && manifest.name !== previous.name) throw new UsageError(`${spec.original} now holds the package "${manifest.name}", not "${previous.name}"`)
      if (previous && packed.integrity === previous.integrity) {
        return { record: previous, loaded: ctx.extensions.list().filter((i) => i.path === installedDir(ctx, previous.name)), updated: false, upToDate: true }
      }
      integrity = packed.integrity
      mkdirSync(packsDir(ctx), { recursive: true })
      const kept = join(packsDir(ctx), `${manifest.name.replace(/^@/, '').replace(/\//g, '-')}-${manifest.version}-${integrity.slice(7, 15).replace(/[^A-Za-z0-9]/g, '_')}.tgz`)
      renameSync(packed.file, kept)
      dependency = `file:.packs/${kept.slice(packsDir(ctx).length + 1)}`
    }
    const dir = installedDir(ctx, manifest.name)
    const records = readRecords(ctx.pluginsDir)
    const before = previous ?? records.plugins[manifest.name]
    const beforeDependency = dependencyOf(ctx, manifest.name)
    const dropPack = () => {
      if (!link && dependency !== beforeDependency) rmSync(join(ctx.pluginsDir, dependency.slice('file:'.length)), { force: true })
    }
    const problem = clash(ctx, manifest, dir)
    if (problem) {
      dropPack()
      throw new UsageError(`${spec.original}: ${problem}`)
    }

    let loaded: ExtensionInfo[] = []
    try {
      await npm(['install', '--save', ...scripts, `${manifest.name}@${dependency}`], npmOptions(ctx))
      const installed = folderManifest(dir)
      loaded = await load(ctx, loadedFrom(ctx, dir) ?? candidateNames(installed), dir)
      const failed = loaded.filter((info) => info.state === 'failed' || info.reason?.startsWith('reload failed'))
      if (loaded.length === 0) throw new AgentError('E_EXTENSION', `${manifest.name} installed, but the kernel did not load any extension from it`)
      if (failed.length) throw new AgentError('E_EXTENSION', `${manifest.name} does not load: ${failed.map((f) => `${f.name}: ${f.reason}`).join('; ')}`)
    } catch (error) {
      await rollback(ctx, manifest.name, beforeDependency, before, loaded)
      dropPack()
      throw error
    }
    const now = new Date().toISOString()
    const record: PluginRecord = {
      name: manifest.name,
      version: installedVersion(dir) ?? manifest.version,
      kind: link ? 'link' : spec.kind,
      source: spec.target,
      ...(integrity ? { integrity } : {}),
      extensions: loaded.map((info) => info.name),
      installed_at: before?.installed_at ?? now,
      updated_at: now,
    }
    records.plugins[manifest.name] = record
    await writeRecords(ctx.pluginsDir, records)
    prunePacks(ctx, manifest.name, dependency)
    return { record, loaded, updated: Boolean(before), ...(before ? { previousVersion: before.version } : {}) }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/** Puts back what was there before a failed install: the previous tarball, or nothing. */
async function rollback(ctx: PluginsContext, name: string, dependency: string | undefined, before: PluginRecord | undefined, loaded: ExtensionInfo[]): Promise<void> {
  const dir = installedDir(ctx, name)
  try {
    if (dependency) {
      await npm(['install', '--save', '--ignore-scripts', `${name}@${dependency}`], npmOptions(ctx))
      await load(ctx, loadedFrom(ctx, dir) ?? candidateNames(folderManifest(dir)), dir)
    } else {
      for (const info of loaded) await ctx.extensions.unload(info.name)
      await npm(['uninstall', '--save', '--ignore-scripts', name], npmOptions(ctx))
    }
  } catch (error) {
    ctx.log.error(`rolling back ${name} failed: ${(error as Error).message}`)
  }
}

function dependencyOf(ctx: PluginsContext, name: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(ctx.pluginsDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
    return pkg.dependencies?.[name]
  } catch {
    return undefined
  }
}

function installedVersion(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version
  } catch {
    return undefined
  }
}

/** Keeps only the tarball the package.json refers to. */
function prunePacks(ctx: PluginsContext, name: string, keep: string): void {
  const prefix = `${name.replace(/^@/, '').replace(/\//g, '-')}-`
  if (!existsSync(packsDir(ctx))) return
  for (const file of readdirSync(packsDir(ctx))) {
    if (file.startsWith(prefix) && `file:.packs/${file}` !== keep && /^\d/.test(file.slice(prefix.length))) rmSync(join(packsDir(ctx), file), { force: true })
  }
}

export async function update(ctx: PluginsContext, name: string | undefined, options: InstallOptions = {}): Promise<Array<InstallResult | { name: string; error: string }>> {
  const records = readRecords(ctx.pluginsDir)
  const chosen = name ? [findRecord(records, name)] : Object.values(records.plugins)
  if (name && !chosen[0]) throw new UsageError(`no plugin named "${name}" was installed with agent plugins`)
  const results: Array<InstallResult | { name: string; error: string }> = []
  for (const record of chosen as PluginRecord[]) {
    try {
      if (record.kind === 'link') {
        const dir = installedDir(ctx, record.name)
        results.push({ record, loaded: await load(ctx, record.extensions, dir), updated: true })
        continue
      }
      results.push(await install(ctx, record.source, { allowScripts: options.allowScripts }, record))
    } catch (error) {
      if (name) throw error
      results.push({ name: record.name, error: (error as Error).message })
    }
  }
  return results
}

export async function remove(ctx: PluginsContext, name: string): Promise<PluginRecord | { name: string }> {
  const records = readRecords(ctx.pluginsDir)
  const record = findRecord(records, name)
  const packageName = record?.name ?? (existsSync(join(installedDir(ctx, name), 'package.json')) ? name : undefined)
  if (!packageName) throw new UsageError(`no plugin named "${name}" (agent plugins list)`)
  const dir = installedDir(ctx, packageName)
  const loaded = ctx.extensions.list().filter((info) => info.path === dir)
  await npm(['uninstall', '--save', '--ignore-scripts', packageName], npmOptions(ctx))
  for (const info of loaded) await ctx.extensions.unload(info.name)
  delete records.plugins[packageName]
  await writeRecords(ctx.pluginsDir, records)
  prunePacks(ctx, packageName, '')
  return record ?? { name: packageName }
}
