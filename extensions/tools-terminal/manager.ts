// Per-session terminal state and command execution: picks the backend, keeps the session's
// persistent shell and container, applies the timeout and the output cap, and starts background
// processes. One instance per extension instance (no module-global state).

import { isAbsolute, relative, resolve } from 'node:path'
import { APPROVALS_SERVICE, editorIoOf, errorMessage, knownSecretsRedactor, shortHash, terminalSandboxMode, type ApprovalsService, type Logger, type Services, type Settings, type ToolSession } from 'agent/sdk'
import { BackgroundRegistry } from './background.ts'
import { backendOf, localEnv, persistentFor, type Backend, type TerminalConfig } from './config.ts'
import { execArgv, interactiveShellArgv, planContainer, SessionContainer } from './container.ts'
import { capOutput, secretCutGuard } from './output.ts'
import { PersistentShell } from './persistent-shell.ts'
import { outputProgress } from './progress.ts'
import { runProcess } from './run-process.ts'
import { TerminalSandbox, type Wrapped } from './sandbox.ts'
import { SentryWatch } from './sandbox-sentry.ts'
import { sandboxNote } from './sandbox-notes.ts'

export interface TerminalInput {
  command: string
  background?: boolean
  timeout?: number
  workdir?: string
  /** Run outside the sandbox (sandbox.ts): a finding the approvals guard asks about. */
  outside_sandbox?: boolean
}

export interface TerminalResult {
  output: string
  exit_code: number | null
  backend: Backend
  timed_out?: boolean
  interrupted?: boolean
  truncated?: boolean
  note?: string
  process_id?: string
  status?: string
}

interface SessionState {
  shells: Map<Backend, PersistentShell>
  /** The sandboxed persistent shell's watch (sandbox-sentry.ts): it lives as long as the shell. */
  shellWatch?: SentryWatch
  container?: SessionContainer
}

export class TerminalManager {
  private readonly sessions = new Map<string, SessionState>()
  readonly background: BackgroundRegistry
  readonly sandbox: TerminalSandbox

  constructor(
    private readonly config: TerminalConfig,
    private readonly settings: Settings,
    private readonly services: Services,
    private readonly log: Logger,
  ) {
    this.background = new BackgroundRegistry({ settings, services, log, limit: config.max_output_chars, outputIntervalMs: () => config.background_output_interval * 1000 })
    this.sandbox = new TerminalSandbox(() => terminalSandboxMode(settings, config.sandbox), settings)
  }

  backend(): Backend {
    return backendOf(this.settings, this.config)
  }

  private state(session: ToolSession): SessionState {
    let state = this.sessions.get(session.id)
    if (!state) this.sessions.set(session.id, (state = { shells: new Map() }))
    return state
  }

  private cwdOf(session: ToolSession, workdir?: string): string {
    const base = this.config.cwd ?? session.cwd
    return workdir ? (isAbsolute(workdir) ? workdir : resolve(base, workdir)) : base
  }

  private container(session: ToolSession): SessionContainer {
    const state = this.state(session)
    state.container ??= new SessionContainer(planContainer(this.config, this.settings, this.cwdOf(session), shortHash(session.id, 10)))
    return state.container
  }

  async run(input: TerminalInput, session: ToolSession, signal: AbortSignal, callId?: string): Promise<TerminalResult> {
    const backend = this.backend()
    const timeoutS = Math.min(input.timeout ?? this.config.timeout, this.config.max_timeout)
    const timeoutMs = Math.round(timeoutS * 1000)
    const limit = this.config.max_output_chars
    // Taken for every call, so that an approval never outlives the call it was given to.
    const outside = backend === 'local' && callId !== undefined && Boolean(this.services.get<ApprovalsService>(APPROVALS_SERVICE)?.unsandboxed(session.id, callId))
    const local = (argv: string[], cwd: string) => (outside ? Promise.resolve({ argv, sandboxed: false, key: '' }) : this.placed(argv, session, cwd))
    if (input.background) return this.startBackground(input, session, backend, local)
    let sandboxed = false

    let outcome: { output: string; exitCode: number | null; timedOut: boolean; interrupted: boolean; spawnError?: string; shellEnded?: boolean; note?: string }
    // The persistent shell's end-of-command marker is not output.
    const progress = outputProgress(session.progress?.bind(session), 250, (line) => line.startsWith('__AGENT_DONE_'))
    const onOutput = (chunk: string) => progress.push(chunk)
    const inEditor = backend === 'local' ? editorIoOf(session)?.runCommand : undefined
    // The persistent shell's sandbox covers its own folder's places: a workdir outside it runs in a sandbox of its own.
    const elsewhere = backend === 'local' && input.workdir !== undefined && persistentFor(this.config, backend, this.settings) && !isWithin(this.cwdOf(session, input.workdir), this.cwdOf(session))
    let watch: SentryWatch | undefined
    let undone: string[] = []
    // Also ended by the sandbox's watch when the command keeps changing protected places.
    const ended = new AbortController()
    const stop = AbortSignal.any([signal, ended.signal])
    try {
      if (inEditor) {
        // An editor (ACP) that offers its terminal: the command runs there, where the user sees it.
        const cwd = this.cwdOf(session, input.workdir)
        const placed = await local([this.config.shell, '-c', input.command], cwd)
        sandboxed = placed.sandboxed
        watch = this.watch(placed, () => ended.abort())
        const ran = await inEditor({ command: placed.argv[0]!, args: placed.argv.slice(1), cwd, timeoutMs, outputByteLimit: limit, signal: stop, ...(callId ? { callId } : {}) })
        // The editor cut the raw output's start: guarded (output.ts), and the cut marked.
        outcome = ran.truncated ? { ...ran, output: `[… earlier output omitted …]\n${this.cutGuard().afterCut(ran.output)}` } : ran
      } else if (persistentFor(this.config, backend, this.settings) && !outside && !elsewhere) {
        const { shell, renewed } = await this.shell(session, backend, timeoutMs)
        sandboxed = shell.sandboxed
        // A workdir for one command must not move the persistent shell: run it in a subshell.
        const command = input.workdir ? `(cd ${shellQuote(this.workdirIn(backend, session, input.workdir))} && ${input.command})` : input.command
        // A look before too: what changed since the last command (an approved file-tool write
        // included) is settled before this one can change it further.
        undone = this.state(session).shellWatch?.check() ?? []
        outcome = await shell.run(command, timeoutMs, signal, onOutput)
        undone = [...undone, ...(this.state(session).shellWatch?.check() ?? [])]
        if (renewed) outcome = { ...outcome, note: renewed }
      } else if (backend === 'local') {
        // (A call approved to leave the sandbox with a persistent shell runs here: the shell is inside it.)
        const cwd = this.cwdOf(session, input.workdir)
        const placed = await local([this.config.shell, '-c', input.command], cwd)
        sandboxed = placed.sandboxed
        watch = this.watch(placed, () => ended.abort())
        outcome = await runProcess(placed.argv, { cwd, env: localEnv(this.config, this.settings), timeoutMs, signal: stop, limit, guard: this.cutGuard, onOutput })
        if (outside && persistentFor(this.config, backend, this.settings)) outcome = { ...outcome, note: 'ran outside the sandbox in a fresh shell, not the persistent one (its cd and variables do not apply)' }
        else if (elsewhere) outcome = { ...outcome, note: "ran in a fresh sandboxed shell, not the persistent one: its workdir is outside the shell's folder, whose protected places the shell's sandbox covers (its cd and variables do not apply)" }
      } else {
        const container = this.container(session)
        await container.ensure(Math.max(timeoutMs, 120_000))
        outcome = await runProcess(execArgv(container.plan, this.config.shell, input.command, this.workdirIn(backend, session, input.workdir)), { env: container.plan.clientEnv, timeoutMs, signal, limit, guard: this.cutGuard, onOutput })
      }
    } finally {
      progress.close()
      undone = [...undone, ...(watch?.stop() ?? [])]
    }
    if (outcome.spawnError) throw new Error(`terminal (${backend}) could not start: ${outcome.spawnError}`)
    // Known secrets out before the head and tail are cut: a cut through one would leave a part that
    // no longer matches it (the runtime redacts the result again, whole, but after this cut).
    const capped = capOutput(this.redacted(outcome.output, outcome.exitCode), limit)
    const result: TerminalResult = { output: capped.text, exit_code: outcome.exitCode, backend }
    if (capped.truncated) result.truncated = true
    if (outcome.timedOut) result.timed_out = true
    if (outcome.interrupted) result.interrupted = true
    if (outcome.timedOut) result.note = `command timed out after ${timeoutS} s and was ended`
    if (outcome.shellEnded) result.note = [result.note, 'the persistent shell ended; the next command starts a fresh one (cwd and variables reset)'].filter(Boolean).join('; ')
    const notes = [result.note, outcome.note, sandboxed && outcome.exitCode !== 0 ? sandboxNote(outcome.output) : undefined, ...undone].filter(Boolean)
    if (notes.length) result.note = notes.join('; ')
    return result
  }

  /**
   * `argv` inside the sandbox when it is active; a sandbox that cannot start says why once in the log.
   * The working folders whose settings and hooks are protected: the command's, the session's,
   * terminal.cwd and the agent's own (it reads project settings from there).
   */
  private async placed(argv: string[], session: ToolSession, cwd: string): Promise<Wrapped> {
    const folders = [...new Set([cwd, session.cwd, this.config.cwd ?? cwd, process.cwd()])]
    const placed = await this.sandbox.wrap(argv, { folders, path: localEnv(this.config, this.settings).PATH })
    if (!placed.sandboxed && !this.warned) {
      const status = await this.sandbox.status()
      if (status.reason) this.log.warn(`terminal sandbox not in use: ${status.reason}; commands run unconfined (install bubblewrap, or set terminal.sandbox: off to say so)`)
      this.warned = true
    }
    return placed
  }

  private warned = false

  /** A sandboxed process's watch over what no mount covers, started before it runs; `end` ends the process. */
  private watch(placed: Wrapped, end: () => void): SentryWatch | undefined {
    return placed.sentinels && new SentryWatch(placed.sentinels, this.log, end)
  }

  /** Clears what is kept next to a cut of raw output of any part of a known secret (output.ts). */
  private readonly cutGuard = () => secretCutGuard(this.settings)

  /** `output` without known secrets (.env looked at now: the command may have written it); fails closed. */
  private redacted(output: string, exitCode: number | null): string {
    try {
      return knownSecretsRedactor(this.settings, { fresh: true })(output)
    } catch (error) {
      throw new Error(`the command ran (exit code ${exitCode}) but its output is withheld: the known secrets could not be read to redact it (${errorMessage(error)})`)
    }
  }

  private workdirIn(backend: Backend, session: ToolSession, workdir?: string): string {
    if (backend === 'local') return this.cwdOf(session, workdir)
    if (!workdir) return this.config.container_workdir
    return workdir.startsWith('/') ? workdir : `${this.config.container_workdir}/${workdir}`
  }

  /**
   * The session's persistent shell. A sandboxed one is started again when the protected places are
   * no longer those it was started with (one created since, a file replaced by a rename, which takes
   * a file's mount away): `renewed` then says so.
   */
  private async shell(session: ToolSession, backend: Backend, timeoutMs: number): Promise<{ shell: PersistentShell; renewed?: string }> {
    const state = this.state(session)
    let shell = state.shells.get(backend)
    let renewed: string | undefined
    if (backend === 'local') {
      const placed = await this.placed([this.config.shell, '--noprofile', '--norc'], session, this.cwdOf(session))
      if (shell && shell.placesKey === placed.key) return { shell }
      if (shell) {
        shell.close()
        renewed = 'the protected places changed since the persistent shell started, so a fresh sandboxed shell ran this command (cd and variables reset)'
      }
      shell = new PersistentShell({ argv: placed.argv, cwd: this.cwdOf(session), env: localEnv(this.config, this.settings) }, this.config.max_output_chars, this.cutGuard, placed.sandboxed, placed.key)
      state.shellWatch?.stop()
      // Ended: the shell and its watch go; the next command starts both afresh.
      const ending = shell
      state.shellWatch = this.watch(placed, () => {
        ending.close()
        if (state.shells.get(backend) === ending) state.shells.delete(backend)
      })
    } else if (shell) {
      return { shell }
    } else {
      const container = this.container(session)
      await container.ensure(Math.max(timeoutMs, 120_000))
      shell = new PersistentShell({ argv: interactiveShellArgv(container.plan, this.config.shell, this.config.container_workdir), env: container.plan.clientEnv }, this.config.max_output_chars, this.cutGuard)
    }
    state.shells.set(backend, shell)
    return { shell, ...(renewed ? { renewed } : {}) }
  }

  private startBackground(input: TerminalInput, session: ToolSession, backend: Backend, local: (argv: string[], cwd: string) => Promise<Wrapped>): Promise<TerminalResult> | TerminalResult {
    const start = (argv: string[], env: Record<string, string>, cwd?: string, placed?: Wrapped): TerminalResult => {
      let id: string | undefined
      const watch = placed && this.watch(placed, () => id && this.background.kill(id))
      const entry = this.background.start(argv, { cwd, env, command: input.command, session, ...(watch ? { onEnd: () => watch.stop() } : {}) })
      id = entry.id
      return { output: `started in the background as ${entry.id}; use the process tool to poll or kill it`, exit_code: null, backend, process_id: entry.id, status: 'running' }
    }
    if (backend === 'local') {
      const cwd = this.cwdOf(session, input.workdir)
      return local([this.config.shell, '-c', input.command], cwd).then((placed) => start(placed.argv, localEnv(this.config, this.settings), cwd, placed))
    }
    const container = this.container(session)
    return container.ensure(120_000).then(() => start(execArgv(container.plan, this.config.shell, input.command, this.workdirIn(backend, session, input.workdir)), container.plan.clientEnv))
  }

  /** Ends one session's shells and container (e.g. when the session ends). */
  async closeSession(sessionId: string): Promise<void> {
    const state = this.sessions.get(sessionId)
    if (!state) return
    this.sessions.delete(sessionId)
    for (const shell of state.shells.values()) shell.close()
    state.shellWatch?.stop()
    await state.container?.remove()
  }

  async closeAll(): Promise<void> {
    this.background.killAll()
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id)))
  }
}

function isWithin(path: string, folder: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}
