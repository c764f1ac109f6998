// The watch over what the terminal sandbox cannot mount read-only (sandbox-watched.ts): from before a
// sandboxed command, shell or background process starts until it ends, the folders holding those
// places are watched (and looked at every 2 s, and once more at the end). A protected place the
// command creates is moved aside (with what it made on the way), a link to one that it replaces is
// put back, a git config change that makes git run a program (git-config-change.ts) is undone, and a
// pinned folder's mode is set back. Nothing is deleted: what is moved keeps its name with
// `.agent-blocked-<time>-<random>` added, and the result's note and the log say where. Every name is
// repaired in a folder the command cannot swap (a pinned one), without following links
// (sentry-files.ts). A command that keeps at it is ended after MAX_UNDONE undos (each one leaves a
// file behind, so an endless fight would fill the disk), and so is one whose changes cannot be
// looked at or repaired: the guard fails closed.

import { statSync, symlinkSync, watch, type FSWatcher } from 'node:fs'
import { dirname, join } from 'node:path'
import { agentWriteOf, contentDigest, errorMessage, type Logger } from 'agent/sdk'
import { refusedGitConfigChange } from './git-config-change.ts'
import type { WatchedConfig } from './sandbox-git.ts'
import type { Sentinels, WatchedPlace } from './sandbox-watched.ts'
import { createFile, fileBytes, hooksIn, linkText, moveAside, nearestFolder, readRegular, realFolder, stampOf } from './sentry-files.ts'
import { HeldModes } from './sentry-modes.ts'

/** Undos one watch makes before it ends the process it watches. */
export const MAX_UNDONE = 20
/** A backstop for events inotify does not give (a watched folder replaced, too many watches). */
const LOOK_EVERY_MS = 2000
/** The least time between two looks that events ask for. */
const LOOK_GAP_MS = 100

export class SentryWatch {
  private readonly watchers = new Map<string, { watcher: FSWatcher; ino: number }>()
  private readonly configs = new Map<WatchedConfig, Buffer | undefined>()
  private notes: string[] = []
  private scheduled = false
  private stopped = false
  private undone = 0
  private ended = false
  private lastLook = 0
  /** Failed looks already told (name and error). */
  private readonly failed = new Set<string>()
  /** The agent's own file-tool writes (sdk agent-writes.ts) are not the command's: the time of the last one taken as such, per path. */
  private readonly taken = new Map<string, number>()
  /** Places the agent wrote, and what they were right after (see stampOf). */
  private readonly accepted = new Map<string, string>()
  private readonly startedAt = Date.now()
  private readonly timer: NodeJS.Timeout
  /** The real folder of each name the agent may repair, as it was at the start (see inPlace). */
  private readonly folders = new Map<string, string>()
  private readonly modes: HeldModes

  /** `end`: ends the watched process (after MAX_UNDONE undos, or a look or repair that failed). */
  constructor(
    private readonly sentinels: Sentinels,
    private readonly log: Logger,
    private readonly end: () => void = () => undefined,
  ) {
    for (const config of sentinels.gitConfigs) {
      this.configs.set(config, fileBytes(config.path))
    }
    const real = new Map<string, string>()
    for (const name of [...sentinels.places.flatMap((p) => [p.path, p.top]), ...sentinels.gitConfigs.flatMap((c) => [c.path, ...(c.top ? [c.top] : [])])]) {
      const dir = dirname(name)
      if (!real.has(dir)) real.set(dir, realFolder(dir))
      this.folders.set(name, real.get(dir)!)
    }
    this.modes = new HeldModes(sentinels.modes)
    this.watchFolders()
    this.timer = setInterval(() => this.soon(), LOOK_EVERY_MS).unref()
  }

  /** Looks now; what was undone since the last call (each also logged as a warning). */
  check(): string[] {
    if (!this.stopped) {
      // One place that cannot be looked at must not stop the others from being looked at.
      for (const place of this.sentinels.places) this.guarded(place.path, () => this.checkPlace(place))
      for (const config of this.configs.keys()) this.guarded(config.path, () => this.checkConfig(config))
      this.modes.check((dir, run) => this.guarded(dir, run), (text) => this.note(text))
      this.guarded('the watched folders', () => this.watchFolders())
    }
    const notes = this.notes
    this.notes = []
    return notes
  }

  /** The last look, and the watching ends. */
  stop(): string[] {
    const notes = this.check()
    this.stopped = true
    clearInterval(this.timer)
    for (const { watcher } of this.watchers.values()) watcher.close()
    this.watchers.clear()
    this.modes.close()
    return notes
  }

  /**
   * A look or repair that fails ends the process (fail closed: the guard cannot do its work), told
   * once per name and error (the periodic look would otherwise repeat it).
   */
  private guarded(what: string, look: () => void): void {
    try {
      look()
    } catch (error) {
      const key = `${what}\0${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}`
      if (this.failed.has(key)) return
      this.failed.add(key)
      this.note(`${what} could not be checked or repaired (${errorMessage(error)}), so the command was ended: check it`)
      this.end()
    }
  }

  /**
   * Throws unless `name` still lies in the real folder it did: the folders are pinned in the sandbox,
   * and this also holds where a folder on the way is a link (a home that is one) a command could swap.
   */
  private inPlace(name: string): string {
    if (realFolder(dirname(name)) !== this.folders.get(name)) throw new Error(`${dirname(name)} now leads elsewhere through a link, so nothing was touched there`)
    return name
  }

  /**
   * Whether the agent's file tools wrote `path` since this watch (or its last such write) began,
   * and, for a file, it holds exactly what they wrote (`bytes`): a command's change mixed into it
   * is not the agent's. Taken once per write.
   */
  private agentWrote(path: string, bytes?: Buffer): boolean {
    const write = agentWriteOf(path)
    if (write === undefined || write.at < this.startedAt || write.at <= (this.taken.get(path) ?? -1)) return false
    if (write.digest !== undefined) {
      const now = bytes ?? fileBytes(path)
      if (now === undefined || contentDigest(now) !== write.digest) return false
    }
    this.taken.set(path, write.at)
    return true
  }

  private checkPlace(place: WatchedPlace): void {
    const now = linkText(place.path)
    if (now === place.link) return
    // The agent's own write is the place's state now: a later change by the command is still the command's.
    if (this.agentWrote(place.path)) return void this.accepted.set(place.path, stampOf(place.path))
    if (this.accepted.get(place.path) === stampOf(place.path)) return
    if (place.link === undefined) {
      if (linkText(place.top) === undefined) return
      const aside = moveAside(this.inPlace(place.top))
      this.note(`${place.path} is a protected place and did not exist; the command created it, so ${place.top === place.path ? 'it' : place.top} was moved to ${aside}`)
      return
    }
    const aside = now === undefined ? undefined : moveAside(this.inPlace(place.path))
    symlinkSync(place.link, this.inPlace(place.path))
    this.note(`the link ${place.path} (to ${place.link}, a protected place) was ${aside ? `replaced (what was there is now ${aside})` : 'removed'}; it was put back`)
  }

  private checkConfig(config: WatchedConfig): void {
    const before = this.configs.get(config)
    // A repository the command is making (`git init`, or a `.git` pointer file or link put there).
    if (config.top) {
      const top = linkText(config.top)
      if (top === undefined) return void this.configs.set(config, undefined)
      if (top !== '' || !statSync(config.top).isDirectory()) return this.refuse(config, `${config.top} now points git at another repository`)
      // A new repository comes with git's *.sample hooks only; any other would run for its next commit.
      const hooks = hooksIn(join(config.top, 'hooks'))
      if (hooks.length) return this.refuse(config, `the repository the command made has hooks (${hooks.join(', ')})`)
    }
    const state = readRegular(config.path)
    // Removed (git would use its defaults): fine, and what comes back is judged against what was.
    if (state.kind === 'missing') return
    if (state.kind === 'file' && before?.equals(state.bytes)) return
    if (state.kind === 'file' && this.agentWrote(config.path, state.bytes)) return void this.configs.set(config, state.bytes)
    const refused = state.kind === 'file' ? refusedGitConfigChange(before, state.bytes, this.sentinels.git) : [`(${state.what})`]
    if (refused.length === 0 && state.kind === 'file') return void this.configs.set(config, state.bytes)
    this.refuse(config, `the command set ${refused.join(', ')}, which makes git run a program or reach a file outside the sandbox`)
  }

  /** A new repository moves aside whole; an existing config goes back to what it was (the changed one kept beside it). */
  private refuse(config: WatchedConfig, why: string): void {
    if (config.top) {
      const aside = moveAside(this.inPlace(config.top))
      this.configs.set(config, undefined)
      return this.note(`${config.path}: ${why}; the repository the command made was moved to ${aside}. Ask to run it with outside_sandbox if it is needed`)
    }
    const before = this.configs.get(config)
    const aside = moveAside(this.inPlace(config.path))
    if (before) createFile(this.inPlace(config.path), before)
    this.note(`${config.path}: ${why}; the change was undone (the changed file is ${aside}). Ask to run it with outside_sandbox if it is needed`)
  }

  private note(text: string): void {
    this.log.warn(`terminal sandbox: ${text}`)
    this.notes.push(text)
    if (++this.undone < MAX_UNDONE || this.ended) return
    this.ended = true
    this.note(`the command kept changing protected places (${MAX_UNDONE} changes undone), so it was ended`)
    this.end()
  }

  /**
   * The nearest existing folder of every watched name (it moves down as a command creates folders
   * on the way), watched again when it is a different folder than the one watched (replaced).
   */
  private watchFolders(): void {
    const names = [...this.sentinels.places.map((place) => place.path), ...[...this.configs.keys()].map((config) => config.path)]
    for (const folder of new Set(names.map((name) => nearestFolder(dirname(name))))) {
      let ino: number
      try {
        ino = statSync(folder).ino
      } catch {
        continue
      }
      const known = this.watchers.get(folder)
      if (known?.ino === ino) continue
      known?.watcher.close()
      try {
        const watcher = watch(folder, { persistent: false }, () => this.soon())
        watcher.on('error', () => {
          watcher.close()
          this.watchers.delete(folder)
        })
        this.watchers.set(folder, { watcher, ino })
      } catch {
        // Not watchable (too many watches): the look every LOOK_EVERY_MS and at the end still come.
        this.watchers.delete(folder)
      }
    }
  }

  /**
   * Events come in bursts (a git command touches .git many times, a build writes thousands of files
   * in a watched folder): one look for each, at most one every LOOK_GAP_MS.
   */
  private soon(): void {
    if (this.scheduled || this.stopped) return
    this.scheduled = true
    setTimeout(() => {
      this.scheduled = false
      this.lastLook = Date.now()
      // Kept for the next check() or stop(), which the command's result reads.
      const found = this.check()
      this.notes.push(...found)
    }, Math.max(0, this.lastLook + LOOK_GAP_MS - Date.now())).unref()
  }

}
