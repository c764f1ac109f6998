// What the terminal sandbox cannot mount read-only, watched instead. A protected place that does not
// exist yet (a mount needs something to mount on, and an empty `~/.bash_profile` would change the
// user's login), a link to a protected place in a writable folder (the mount is at the link's target;
// the link itself can be replaced), and the working folders' git config (git rewrites it in ordinary
// work; git-config-change.ts says which changes are fine). While a sandboxed command, shell or
// background process lives, the folders holding them are watched, and they are looked at again when
// it ends: a place created is moved aside, a link replaced is put back, a git config change that
// makes git run a program is undone. Nothing is deleted: what was moved keeps its name with
// `.agent-blocked-<time>-<random>` added, and the command's result and the log say where it is. A
// command that keeps at it (a loop recreating a place) is ended after MAX_UNDONE undos: each one
// leaves a file behind, so an endless fight would fill the disk.

import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync, renameSync, symlinkSync, watch, writeFileSync, type FSWatcher } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import { agentWroteSince, errorMessage, type Logger } from 'agent/sdk'
import { refusedGitConfigChange } from './git-config-change.ts'

/** Undos one watch makes before it ends the process it watches. */
export const MAX_UNDONE = 20

export interface Sentinels {
  /** Protected places no mount covers: missing ones (no `link`), and links to them (`link`: the link's text). */
  places: Array<{ path: string; link?: string }>
  /** The working folders' git config files (gitConfigsOf), present or not. */
  gitConfigs: string[]
  /** The git that reads them: from a PATH folder the sandbox makes read-only (a planted one would run unconfined). */
  git?: string
}

/** One sandboxed process's watch, from before it starts until `stop()`. */
export class SentryWatch {
  private readonly watchers = new Map<string, FSWatcher>()
  private readonly configs = new Map<string, Buffer | undefined>()
  /** Each watched path's folder as it really was at the start: a path that now leads elsewhere through a link is not touched. */
  private readonly parents = new Map<string, string>()
  private notes: string[] = []
  private readonly misled = new Set<string>()
  private scheduled = false
  private stopped = false
  /** Writes the agent's file tools made from now on are not the command's (sdk agent-writes.ts). */
  private readonly startedAt = Date.now()
  private readonly agents = new Set<string>()
  private undone = 0

  /** `end`: ends the watched process (called once, when it has been undone MAX_UNDONE times). */
  constructor(
    private readonly sentinels: Sentinels,
    private readonly log: Logger,
    private readonly end: () => void = () => undefined,
  ) {
    for (const path of sentinels.gitConfigs) this.configs.set(path, readBytes(path))
    const real = new Map<string, string>()
    for (const path of [...sentinels.places.map((p) => p.path), ...sentinels.gitConfigs]) {
      const dir = dirname(path)
      if (!real.has(dir)) real.set(dir, realFolder(dir))
      this.parents.set(path, real.get(dir)!)
    }
    this.watchFolders()
  }

  /** Looks now; what was undone since the last call (each also logged as a warning). */
  check(): string[] {
    if (!this.stopped) {
      for (const place of this.sentinels.places) this.checkPlace(place)
      for (const [path, before] of this.configs) this.checkConfig(path, before)
      this.watchFolders()
    }
    const notes = this.notes
    this.notes = []
    return notes
  }

  /** The last look, and the watching ends. */
  stop(): string[] {
    const notes = this.check()
    this.stopped = true
    for (const watcher of this.watchers.values()) watcher.close()
    this.watchers.clear()
    return notes
  }

  /** Whether `path` still lies in the folder it did: the agent renames and writes outside the sandbox, so never through a link a command made. */
  private inPlace(path: string): boolean {
    if (realFolder(dirname(path)) === this.parents.get(path)) return true
    if (this.misled.has(path)) return false
    this.misled.add(path)
    this.note(`${path} now leads elsewhere through a link a command made, so it was not touched: check it`)
    return false
  }

  private checkPlace(place: { path: string; link?: string }): void {
    const now = linkText(place.path)
    if (now === place.link || (now === undefined && place.link === undefined) || !this.inPlace(place.path)) return
    // The agent's own (approved) write: the place is the agent's now, and the next sandbox mounts it.
    if (this.agents.has(place.path) || agentWroteSince(place.path, this.startedAt)) return void this.agents.add(place.path)
    if (place.link === undefined) {
      const aside = this.moveAside(place.path)
      this.note(`${place.path} is a protected place and did not exist; the command created it, so it was ${aside ? `moved to ${aside}` : 'left there (it could not be moved aside: check it)'}`)
      return
    }
    const aside = now === undefined ? undefined : this.moveAside(place.path)
    if (now !== undefined && !aside) return this.note(`the link ${place.path} to a protected place was replaced and could not be put back: check it`)
    try {
      symlinkSync(place.link, place.path)
      this.note(`the link ${place.path} (to ${place.link}, a protected place) was ${now === undefined ? 'removed' : `replaced (what was there is now ${aside})`}; it was put back`)
    } catch (error) {
      this.note(`the link ${place.path} (to ${place.link}, a protected place) was changed and could not be put back (${errorMessage(error)}): check it`)
    }
  }

  private checkConfig(path: string, before: Buffer | undefined): void {
    const after = readBytes(path)
    if (after === undefined || (before !== undefined && before.equals(after))) {
      this.configs.set(path, after)
      return
    }
    const refused = agentWroteSince(path, this.startedAt) ? [] : refusedGitConfigChange(before, after, this.sentinels.git)
    if (refused.length === 0) return void this.configs.set(path, after)
    if (!this.inPlace(path)) return
    const aside = `${path}${asideSuffix()}`
    try {
      // Exclusive creates: a link a command put at either name is not followed.
      writeFileSync(aside, after, { flag: 'wx' })
      // Back as it was (a config a `git init` in the command made: empty, which git reads as its defaults).
      const restored = before ?? Buffer.alloc(0)
      const undo = `${aside}.undo`
      writeFileSync(undo, restored, { flag: 'wx' })
      renameSync(undo, path)
      this.configs.set(path, restored)
      this.note(`${path}: the command set ${refused.join(', ')}, which makes git run a program outside the sandbox; the change was undone (the changed file is ${aside}). Ask to run it with outside_sandbox if it is needed`)
    } catch (error) {
      this.note(`${path}: the command set ${refused.join(', ')}, which makes git run a program, and the change could not be undone (${errorMessage(error)}): check it`)
    }
  }

  /** `path` renamed to `<path>.agent-blocked-<time>`; undefined when it cannot be. */
  private moveAside(path: string): string | undefined {
    const aside = `${path}${asideSuffix()}`
    try {
      renameSync(path, aside)
      return aside
    } catch (error) {
      this.log.error(`terminal sandbox: could not move ${path} aside: ${errorMessage(error)}`)
      return undefined
    }
  }

  private note(text: string): void {
    this.log.warn(`terminal sandbox: ${text}`)
    this.notes.push(text)
    if (++this.undone !== MAX_UNDONE) return
    this.note(`the command kept changing protected places (${MAX_UNDONE} changes undone), so it was ended`)
    this.end()
  }

  /**
   * The nearest existing folder of every missing place (it moves down as a command creates the
   * folders on the way), each link's folder and each git config's folder.
   */
  private watchFolders(): void {
    const folders = new Set([...this.sentinels.places.map((place) => dirname(place.path)), ...[...this.configs.keys()].map(dirname)].map(nearestFolder))
    for (const folder of folders) {
      if (this.watchers.has(folder)) continue
      try {
        const watcher = watch(folder, { persistent: false }, () => this.soon())
        watcher.on('error', () => {
          watcher.close()
          this.watchers.delete(folder)
        })
        this.watchers.set(folder, watcher)
      } catch {
        // Gone or not watchable (too many watches): the look when the process ends still comes.
      }
    }
  }

  /** Events come in bursts (a git command touches .git many times): one look for each. */
  private soon(): void {
    if (this.scheduled || this.stopped) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      // Kept for the next check() or stop(), which the command's result reads.
      const found = this.check()
      this.notes.push(...found)
    })
  }
}

/** The link's text; '' for something that is not a link; undefined for nothing. */
function linkText(path: string): string | undefined {
  const info = lstatSync(path, { throwIfNoEntry: false })
  try {
    return info === undefined ? undefined : info.isSymbolicLink() ? readlinkSync(path) : ''
  } catch {
    return undefined
  }
}

/** The real path of `dir`, or of its nearest existing folder with the rest as written. */
function realFolder(dir: string): string {
  if (!existsSync(dir)) return dirname(dir) === dir ? dir : join(realFolder(dirname(dir)), basename(dir))
  try {
    return realpathSync(dir)
  } catch {
    return dir
  }
}

function nearestFolder(dir: string): string {
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir)
  return dir
}

function readBytes(path: string): Buffer | undefined {
  if (!existsSync(path)) return undefined
  try {
    return readFileSync(path)
  } catch {
    return undefined
  }
}

/** Unique without looking (a name taken already makes the exclusive create or the rename fail, never overwrite). */
function asideSuffix(): string {
  return `.agent-blocked-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(6).toString('hex')}`
}
