// Checkpoints: before every file-modifying tool call (ToolCallEvent.modifiesFiles, or the terminal),
// a snapshot of the working directory in a shadow git repository of its own; `/rollback` lists and
// restores them. Quietly disabled where it cannot run (no git, home or root, too many files); it
// never blocks a tool: every failure is logged and the call goes on. A snapshot slower than
// `report_slower_than` (1 s) says so (a progress line on the tool's status, and an info log line).

import { join, resolve } from 'node:path'
import { defineExtension, errorMessage, knownSecretsRedactor, type ToolCallEvent } from 'agent/sdk'
import { rollbackCommand } from './command.ts'
import { checkDirectory, type Eligibility } from './eligibility.ts'
import { git } from './git.ts'
import { CheckpointStore } from './store.ts'

interface CheckpointsConfig {
  enabled: boolean
  max_snapshots: number
  max_files: number
  git_timeout: number
  report_slower_than: number
}

/** After approvals (a refused command needs no snapshot). */
export const CHECKPOINTS_STAGE = 50
const ELIGIBILITY_TTL_MS = 60_000

export default defineExtension<CheckpointsConfig>({
  name: 'checkpoints',
  version: '1.0.0',
  configKey: 'checkpoints',
  config: {
    type: 'object',
    properties: {
      enabled: { type: 'boolean', default: true },
      max_snapshots: { type: 'integer', minimum: 1, default: 50 },
      max_files: { type: 'integer', minimum: 1, default: 50_000 },
      git_timeout: { type: 'number', minimum: 1, maximum: 600, default: 30 },
      // Seconds: a snapshot slower than this is reported (0: every one).
      report_slower_than: { type: 'number', minimum: 0, maximum: 600, default: 1 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config as CheckpointsConfig
    const env = (): Record<string, string> => {
      const out: Record<string, string> = {}
      for (const name of ['PATH', 'HOME', 'TMPDIR']) {
        const value = api.settings.env(name)
        if (value !== undefined) out[name] = value
      }
      return out
    }
    let store: CheckpointStore | undefined
    const getStore = () => (store ??= new CheckpointStore(join(api.settings.home, 'checkpoints'), env(), config.git_timeout * 1000, config.max_snapshots, api.settings.home))
    let gitPresent: Promise<boolean> | undefined
    const eligibility = new Map<string, { at: number; value: Promise<Eligibility> }>()
    const queues = new Map<string, Promise<unknown>>()
    const sessionDirs = new Map<string, string>()
    let lastDir: string | undefined

    // Known secrets out of what a checkpoint records (commit messages land in COMMIT_EDITMSG and
    // logs/HEAD as plain files) and of what /rollback shows; undefined when they cannot be read, so
    // the caller leaves the text out rather than record or show it raw.
    const redact = (text: string): string | undefined => {
      try {
        return knownSecretsRedactor(api.settings)(text)
      } catch {
        return undefined
      }
    }

    const hasGit = () => (gitPresent ??= git({ gitDir: '/nonexistent', workTree: api.settings.home, env: env(), timeoutMs: 10_000 }, ['--version']).then((r) => r.code === 0))

    function eligible(dir: string): Promise<Eligibility> {
      const cached = eligibility.get(dir)
      if (cached && Date.now() - cached.at < ELIGIBILITY_TTL_MS) return cached.value
      const value = checkDirectory(dir, api.settings.env('HOME'), config.max_files, api.settings.home)
      eligibility.set(dir, { at: Date.now(), value })
      return value
    }

    async function snapshot(event: ToolCallEvent): Promise<void> {
      const dir = resolve(event.session.cwd)
      if (!(await hasGit())) return void api.log.debug('checkpoints disabled: git is not installed')
      const check = await eligible(dir)
      if (!check.ok) return void api.log.debug(`checkpoints skipped for ${dir}: ${check.reason}`)
      const input = event.input as { command?: unknown; path?: unknown; file_path?: unknown } | null
      const raw = [input?.command, input?.path, input?.file_path].find((v) => typeof v === 'string') as string | undefined
      // Redacted before it is cut: cutting first could leave the start of a secret unmatched.
      const what = raw === undefined ? undefined : redact(raw)
      const reason = `before ${event.tool}${what ? `: ${what.replace(/\s+/g, ' ').slice(0, 80)}` : ''}`
      // One git at a time per directory (parallel tool calls would race for the index lock).
      const previous = queues.get(dir) ?? Promise.resolve()
      const run = previous.then(async () => {
        const started = performance.now()
        const outcome = await getStore().snapshot(dir, reason)
        return { ...outcome, ms: performance.now() - started }
      })
      queues.set(dir, run.catch(() => undefined))
      const outcome = await run
      if (outcome.ms >= config.report_slower_than * 1000) {
        const line = `checkpoint of ${dir} took ${(outcome.ms / 1000).toFixed(1)} s, ${outcome.files.toLocaleString('en-US')} files (.gitignore what it need not keep)`
        api.log.info(line)
        event.session.progress?.(redact(line) ?? `checkpoint took ${(outcome.ms / 1000).toFixed(1)} s`)
      }
      sessionDirs.set(event.session.id, dir)
      lastDir = dir
    }

    api.hooks.beforeToolCall.tapPromise({ stage: CHECKPOINTS_STAGE }, async (event) => {
      if (!event.modifiesFiles && event.tool !== 'terminal') return undefined
      if (!config.enabled && event.session.extra?.checkpoints !== true) return undefined
      try {
        await snapshot(event)
      } catch (error) {
        api.log.warn(`checkpoint before ${event.tool} failed (the call goes on): ${errorMessage(error)}`)
      }
      return undefined
    })

    api.commands.register(
      rollbackCommand({
        store: getStore,
        redact,
        // The directory this conversation checkpointed; the CLI falls back to where it runs.
        workDir: (sessionId, surface) => (sessionId && sessionDirs.get(sessionId)) || lastDir || (surface === 'cli' ? process.cwd() : undefined),
      }),
    )
  },
})
