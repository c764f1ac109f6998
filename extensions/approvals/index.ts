// Dangerous-command approvals: a `beforeToolCall` guard on command-running tools. Never-allowed
// commands are always blocked; dangerous ones need approval according to `approvals.mode` (manual:
// ask a person; smart: the auxiliary model first, escalating to a person when unclear; off: run).
// Also `/approve [session|always]` and `/deny` for gateway chats, and the `approvals` service.

import { APPROVALS_SERVICE, approvalModeOf, assessCommand, commandJudge, defineExtension, errorMessage, knownSecretsRedactor, terminalSandboxMode, type ApprovalChoice, type ApprovalMode, type ApprovalPrompt, type ApprovalsService, type CommandFinding, type ToolCallEvent, type ToolCallVerdict } from 'agent/sdk'
import { isAbsolute, resolve } from 'node:path'
import { askPerson } from './ask.ts'
import { approvalCommands } from './commands.ts'
import { assessFileWrite, CallGrants, sessionOnlyGrant } from './file-guard.ts'
import { commandTools, FAIL_CLOSED_TOOLS } from './guarded.ts'
import { PendingApprovals } from './pending.ts'
import { askJudge } from './smart.ts'

interface ApprovalsConfig {
  mode: ApprovalMode
  timeout: number
  judge_timeout: number
  allowlist: string[]
  tools: string[]
}

/** Runs before checkpoints (which snapshot only what will really run). */
export const APPROVALS_STAGE = -50

export default defineExtension<ApprovalsConfig>({
  name: 'approvals',
  version: '1.0.0',
  configKey: 'approvals',
  // Static, so the kernel refuses these even when this config is invalid and setup never runs.
  guards: { tools: FAIL_CLOSED_TOOLS },
  config: {
    type: 'object',
    properties: {
      mode: { enum: ['manual', 'smart', 'off'], default: 'manual' },
      timeout: { type: 'number', exclusiveMinimum: 0, default: 60 },
      judge_timeout: { type: 'number', exclusiveMinimum: 0, default: 30 },
      allowlist: { type: 'array', items: { type: 'string' }, default: [] },
      // Extra command-running tools; added to COMMAND_TOOLS, so [] cannot turn approvals off.
      tools: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config as ApprovalsConfig
    const guardedCommands = commandTools(config.tools)
    const pending = new PendingApprovals()
    const sessionAllowed = new Map<string, Set<string>>()
    const writeGrants = new CallGrants()
    // Terminal calls that may run outside the sandbox (tools-terminal sandbox.ts), by the same rule.
    const escapes = new CallGrants()
    let saving: Promise<void> = Promise.resolve()

    const block = (reason: string): ToolCallVerdict => ({ block: true, reason })
    const allowlist = () => new Set(api.settings.get<string[]>('approvals.allowlist') ?? config.allowlist)

    /** `always`: the pattern keys join approvals.allowlist in config.yaml (writes serialised). */
    const persist = (keys: string[]) => {
      saving = saving.then(async () => {
        const current = [...allowlist()]
        const next = [...new Set([...current, ...keys])]
        if (next.length !== current.length) await api.settings.set('approvals.allowlist', next)
      })
      return saving
    }

    /**
     * Where the command really runs, resolved as the terminal resolves it (tools-terminal manager.ts
     * `cwdOf`): the call's `workdir` (relative to the base), else `terminal.cwd`, else the session's.
     * (With a persistent shell and no workdir it is where the shell was left: unknown, judged as the base.)
     */
    function commandCwd(event: ToolCallEvent): string {
      const configured = api.settings.get<unknown>('terminal.cwd')
      const base = typeof configured === 'string' && configured ? configured : event.session.cwd
      const workdir = (event.input as { workdir?: unknown } | null)?.workdir
      if (typeof workdir !== 'string' || !workdir) return base
      return isAbsolute(workdir) ? workdir : resolve(base, workdir)
    }

    async function guard(event: ToolCallEvent): Promise<ToolCallVerdict | undefined> {
      const file = assessFileWrite(event, api.settings.home)
      if (file) {
        // No smart judge for file writes: a model cannot vouch for code or config the agent will load.
        const verdict = file.findings.length ? await decide(event, file.command, file.findings, false) : undefined
        if (!verdict && file.findings.length) writeGrants.grant(event.session.id, event.callId, file.path)
        return verdict
      }
      if (!guardedCommands.has(event.tool)) return undefined
      const command = (event.input as { command?: unknown } | null)?.command
      if (typeof command !== 'string') return undefined
      let assessment: Awaited<ReturnType<typeof assessCommand>>
      try {
        assessment = await assessCommand(command, { agentHome: api.settings.home, cwd: commandCwd(event) })
      } catch (error) {
        // Fail closed: a command that cannot be judged (parser missing, input it cannot handle) does not run.
        return block(`BLOCKED: approvals could not judge this command (${errorMessage(error)}); if the shell parser is missing, reinstall tree-sitter-bash. Do not retry it.`)
      }
      if (assessment.neverAllowed.length) {
        return block(`BLOCKED: ${describe(assessment.neverAllowed)} is never allowed. Do not retry it or work around it.`)
      }
      const findings = [...assessment.dangerous]
      const escape = (event.input as { outside_sandbox?: unknown }).outside_sandbox === true && sandboxOn()
      if (escape) findings.push(SANDBOX_ESCAPE)
      const verdict = await decide(event, command, findings, true)
      if (!verdict && escape) escapes.grant(event.session.id, event.callId, 'sandbox')
      return verdict
    }

    /**
     * Whether the terminal sandbox may be on (tools-terminal decides whether it runs): asking to
     * leave it is then a finding. An invalid mode counts as on (the terminal refuses it anyway).
     */
    function sandboxOn(): boolean {
      try {
        return terminalSandboxMode(api.settings) !== 'off'
      } catch {
        return true
      }
    }

    /** The flow for findings that need approval: mode, allowlist and session grants, judge, person. */
    async function decide(event: ToolCallEvent, command: string, findings: CommandFinding[], judge: boolean): Promise<ToolCallVerdict | undefined> {
      const mode = approvalModeOf(event.session.extra) ?? config.mode
      if (mode === 'off' || findings.length === 0) return undefined
      const granted = new Set([...allowlist(), ...(sessionAllowed.get(event.session.id) ?? [])])
      const open = findings.filter((f) => !granted.has(f.key))
      if (open.length === 0) return undefined

      if (mode === 'smart' && judge) {
        // The judge is another model (perhaps another provider's): it reads the command without known secrets.
        const judged = await askJudge(api.services, command, open.map((f) => f.description), config.judge_timeout * 1000, (text) => knownSecretsRedactor(api.settings)(text))
        api.log.info(`smart approval: ${judged.verdict} (${judged.note})`)
        if (judged.verdict === 'approve') return undefined
        if (judged.verdict === 'deny') return block(`BLOCKED by smart approval: ${describe(open)}. Do not retry this command.`)
      }
      const prompt = event.session.extra?.approvalPrompt as ApprovalPrompt | undefined
      // The person is asked through a chat platform, an editor or the dashboard: what they read names
      // a known secret by its marker. Secrets that cannot be read: the command is not shown, so denied.
      let shown: string
      try {
        shown = knownSecretsRedactor(api.settings)(command)
      } catch (error) {
        return block(`BLOCKED: the command could not be shown for approval without its secrets (${errorMessage(error)}). Do not retry it.`)
      }
      const answer = await askPerson(
        { services: api.services, pending, timeoutMs: config.timeout * 1000, isTTY: () => Boolean(process.stdin.isTTY && process.stderr.isTTY), signal: event.signal },
        { sessionId: event.session.id, source: event.session.source, tool: event.tool, callId: event.callId, command: shown, findings: open },
        typeof prompt === 'function' ? prompt : undefined,
      )
      const verdict = await apply(answer.choice, answer.reason, open, event.session.id)
      // A person who approved this very command saw all of it: it runs as approved, outside the sandbox.
      if (!verdict && judge) escapes.grant(event.session.id, event.callId, 'sandbox')
      return verdict
    }

    async function apply(choice: ApprovalChoice, reason: string | undefined, open: CommandFinding[], sessionId: string): Promise<ToolCallVerdict | undefined> {
      const keys = open.map((f) => f.key)
      if (choice === 'deny') return block(`The user did not approve this command (${describe(open)})${reason ? `: ${reason}` : ''}. Do not retry it unless asked.`)
      // What `always` may not save (sessionOnlyGrant) is remembered for the session instead.
      const saved = choice === 'always' ? keys.filter((key) => !sessionOnlyGrant(key)) : []
      if (choice === 'session' || (choice === 'always' && saved.length < keys.length)) {
        const set = sessionAllowed.get(sessionId) ?? new Set<string>()
        for (const key of keys) if (!saved.includes(key)) set.add(key)
        sessionAllowed.set(sessionId, set)
      }
      if (saved.length) await persist(saved)
      return undefined
    }

    api.hooks.beforeToolCall.tapPromise({ stage: APPROVALS_STAGE }, guard)

    const service: ApprovalsService = {
      assess: (command) => assessCommand(command, { agentHome: api.settings.home }),
      judge: async () => {
        const judge = await commandJudge()
        return (command) => judge(command, { agentHome: api.settings.home })
      },
      pending: (filter) => pending.list(filter),
      resolve: async (id, choice, reason) => pending.settle(id, choice, reason),
      denyAll: (sessionId, reason = 'the session was reset') => pending.denyAll(reason, { sessionId }),
      writeApproved: (sessionId, callId, path) => writeGrants.take(sessionId, callId, path),
      unsandboxed: (sessionId, callId) => escapes.take(sessionId, callId, 'sandbox'),
    }
    api.services.provide(APPROVALS_SERVICE, service)
    for (const command of approvalCommands(service, api.services)) api.commands.register(command)
    api.onDispose(() => void pending.denyAll('approvals were unloaded'))
  },
})

/** A terminal call that asks to run outside the sandbox (`outside_sandbox: true`). */
const SANDBOX_ESCAPE: CommandFinding = { key: 'sandbox-escape', description: 'runs outside the terminal sandbox, where protected places (home login files, the agent, system folders) are writable' }

function describe(findings: CommandFinding[]): string {
  return findings.map((f) => f.description).join('; ')
}
