// The checkpoint store: one shadow git repository per working directory under
// <agent_home>/checkpoints/<sha256(dir)[:16]>. Snapshots are commits on its `main` branch (newest
// first when listed); a restore first snapshots the current state, so a rollback can be undone.
// Old snapshots beyond `max_snapshots` are dropped by rebuilding the chain and collecting garbage.
// What is staged: files.ts (the project's own ignore rules, never the agent home).

import { createHash } from 'node:crypto'
import { mkdirSync, existsSync, writeFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { excludeFile, homeWithin, keptFiles, LIST_FILES, projectFiles } from './files.ts'
import { git, gitOk, type GitContext } from './git.ts'

export interface Snapshot {
  /** 1 = most recent. */
  number: number
  hash: string
  time: number
  reason: string
}

const REF = 'refs/heads/main'

export interface SnapshotOutcome {
  /** false: nothing changed since the last snapshot, none was added. */
  created: boolean
  /** Files the snapshot holds (a file deleted since the last one still counts, once). */
  files: number
}

export class CheckpointStore {
  constructor(
    private readonly root: string,
    private readonly env: Record<string, string>,
    private readonly timeoutMs: number,
    private readonly maxSnapshots: number,
    /** The agent's home: never part of a snapshot when it lies inside the directory. */
    private readonly agentHome?: string,
  ) {}

  dirFor(workDir: string): string {
    return join(this.root, createHash('sha256').update(resolve(workDir)).digest('hex').slice(0, 16))
  }

  private ctx(workDir: string): GitContext {
    return { gitDir: this.dirFor(workDir), workTree: resolve(workDir), env: this.env, timeoutMs: this.timeoutMs }
  }

  private async init(ctx: GitContext): Promise<void> {
    if (existsSync(join(ctx.gitDir, 'HEAD'))) return
    mkdirSync(ctx.gitDir, { recursive: true, mode: 0o700 })
    await gitOk(ctx, ['init', '--quiet', '--initial-branch=main'])
    mkdirSync(join(ctx.gitDir, 'info'), { recursive: true })
    writeFileSync(join(ctx.gitDir, 'AGENT_WORKDIR'), `${ctx.workTree}\n`)
  }

  /**
   * Makes the shadow index match the directory: exactly the files git lists (files.ts), the
   * project's `ls-files -co --exclude-standard` in a git work tree, else the shadow's own (the
   * folder's .gitignore files apply, git's own matcher, and info/exclude adds ours), fed to
   * update-index, which reuses the stat cache (unchanged files are not read again). Never `git add
   * --all`: it stages a nested repository as a gitlink and, at the next snapshot, runs `git status`
   * inside it, where that repository's config names programs (core.fsmonitor) a sandboxed command
   * could have planted.
   */
  private async stage(ctx: GitContext): Promise<number> {
    const homeRel = homeWithin(ctx.workTree, this.agentHome)
    let files = await projectFiles(ctx.workTree, homeRel, this.env, this.timeoutMs)
    if (!files) {
      writeFileSync(join(ctx.gitDir, 'info', 'exclude'), excludeFile(homeRel))
      files = await keptFiles(ctx.workTree, await gitOk(ctx, LIST_FILES), homeRel)
    }
    const wanted = new Set(files)
    // Also drops a gitlink an older version staged (a directory is never wanted).
    const gone = (await gitOk(ctx, ['ls-files', '-z'])).split('\0').filter((f) => f && !wanted.has(f))
    if (gone.length) await gitOk(ctx, ['update-index', '--force-remove', '-z', '--stdin'], undefined, gone.join('\0') + '\0')
    // --replace: a file that became a folder (or the reverse) replaces the entries it conflicts with.
    if (files.length) await gitOk(ctx, ['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], undefined, files.join('\0') + '\0')
    return files.length
  }

  private async head(ctx: GitContext): Promise<string | undefined> {
    const result = await git(ctx, ['rev-parse', '--verify', '--quiet', REF])
    return result.code === 0 ? result.stdout.trim() : undefined
  }

  /** Commits the directory's current state; returns false when nothing changed since the last one. */
  async snapshot(workDir: string, reason: string, options: { force?: boolean; prune?: boolean } = {}): Promise<SnapshotOutcome> {
    const ctx = this.ctx(workDir)
    await this.init(ctx)
    const files = await this.stage(ctx)
    const head = await this.head(ctx)
    if (head && !options.force) {
      const diff = await git(ctx, ['diff', '--cached', '--quiet', REF])
      if (diff.code === 0) return { created: false, files }
    }
    await gitOk(ctx, ['commit', '--quiet', '--no-verify', '--allow-empty', '-m', reason.slice(0, 200)])
    if (options.prune !== false) await this.prune(ctx)
    return { created: true, files }
  }

  async list(workDir: string): Promise<Snapshot[]> {
    const ctx = this.ctx(workDir)
    if (!existsSync(join(ctx.gitDir, 'HEAD')) || !(await this.head(ctx))) return []
    const out = await gitOk(ctx, ['log', '--format=%H%x1f%ct%x1f%s', REF])
    return out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line, index) => {
        const [hash, time, reason] = line.split('\x1f')
        return { number: index + 1, hash: hash!, time: Number(time) * 1000, reason: reason ?? '' }
      })
  }

  /**
   * A summary of what differs between snapshot N and the directory now. Paths are never shortened
   * (`.../end-of-name`): a cut name could keep the end of a secret the caller's redaction misses.
   */
  async diff(workDir: string, number: number): Promise<string> {
    const target = await this.pick(workDir, number)
    const ctx = this.ctx(workDir)
    await this.stage(ctx)
    return (await gitOk(ctx, ['diff', '--cached', '--stat=100000,100000', target.hash])).trim()
  }

  /**
   * Restores snapshot N: snapshots the current state first (always, so `/rollback 1` undoes this),
   * then makes the directory match N — changed files rewritten, files added since removed.
   */
  async restore(workDir: string, number: number): Promise<{ restored: Snapshot; undo: Snapshot }> {
    const target = await this.pick(workDir, number)
    const ctx = this.ctx(workDir)
    await this.snapshot(workDir, `before rollback to ${target.hash.slice(0, 8)} (${target.reason})`.slice(0, 200), { force: true, prune: false })
    const added = (await gitOk(ctx, ['diff', '--name-only', '--no-renames', '--diff-filter=A', '-z', target.hash, REF])).split('\0').filter(Boolean)
    for (const file of added) rmSync(join(ctx.workTree, file), { force: true })
    await gitOk(ctx, ['checkout', target.hash, '--', '.'])
    // Re-sync the index with the branch head so the next snapshot compares against what it holds.
    await gitOk(ctx, ['reset', '--quiet', REF])
    // Only now may old snapshots go: the target had to stay reachable until it was checked out.
    await this.prune(ctx)
    const [undo] = await this.list(workDir)
    return { restored: target, undo: undo! }
  }

  private async pick(workDir: string, number: number): Promise<Snapshot> {
    const snapshots = await this.list(workDir)
    if (!Number.isInteger(number) || number < 1 || number > snapshots.length) {
      throw new RangeError(snapshots.length ? `no checkpoint #${number} (there are ${snapshots.length}; /rollback lists them)` : 'no checkpoints for this directory yet')
    }
    return snapshots[number - 1]!
  }

  /** Keeps the newest `maxSnapshots` commits: rebuilds the chain from the oldest kept one, then gc. */
  private async prune(ctx: GitContext): Promise<void> {
    const hashes = (await gitOk(ctx, ['rev-list', REF])).trim().split('\n').filter(Boolean)
    // Prune in batches so a busy directory does not rewrite the chain on every snapshot.
    if (hashes.length <= this.maxSnapshots + Math.max(1, Math.floor(this.maxSnapshots / 5))) return
    const keep = hashes.slice(0, this.maxSnapshots).reverse()
    let parent: string | undefined
    for (const hash of keep) {
      const meta = (await gitOk(ctx, ['show', '-s', '--format=%T%x1f%aI%x1f%cI%x1f%B', hash])).split('\x1f')
      const args = ['commit-tree', meta[0]!, ...(parent ? ['-p', parent] : []), '-m', (meta[3] ?? '').trim() || 'checkpoint']
      parent = (await gitOk(ctx, args, { GIT_AUTHOR_DATE: meta[1]!, GIT_COMMITTER_DATE: meta[2]! })).trim()
    }
    await gitOk(ctx, ['update-ref', REF, parent!])
    await git(ctx, ['reflog', 'expire', '--expire=now', '--all'])
    await git(ctx, ['gc', '--prune=now', '--quiet'])
  }
}
