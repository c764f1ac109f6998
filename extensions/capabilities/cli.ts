// `agent capabilities check|query|explain|schema|permissions|token`. `query --json` prints exactly
// {"allowed", "scopes": {"allow", "deny"}, "scopeAllowed"?} or, for an invalid file,
// {"error": {"kind", "message"}} and exits 2 (DECISIONS.md, "Capability files"). `--project DIR`
// adds DIR/capabilities: its plugins' permission files, and its capability files by default.

import { join, resolve } from 'node:path'
import {
  capabilitySchema,
  checkPathScope,
  checkUrlScope,
  currentTarget,
  formatProblem,
  isPathVariable,
  ResolvedAcl,
  TARGETS,
  type AccessRequest,
  type BaseDirectories,
  type CliCommand,
  type CliContext,
  type CommandDefinition,
  type CommandLayer,
  type PathVariable,
  type ProblemKind,
  type ScopeVerdict,
  type Settings,
  type Target,
} from 'agent/sdk'
import { checkFiles, currentManifests, listCapabilityFiles, type LoadedManifests } from './acl-state.ts'
import { explain } from './explain.ts'
import { permissionsCommand } from './permissions-listing.ts'
import { issueToken, loadSecret } from './token.ts'

export interface CliDeps {
  layer: CommandLayer
  settings: Settings
  folder: string
  tokenTtl: number
  baseDirs(): BaseDirectories
}

const list = (value: unknown): string[] => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String))

class QueryFailure extends Error {
  constructor(readonly kind: ProblemKind, message: string) {
    super(message)
  }
}

const PROJECT_OPTION: NonNullable<CliCommand['options']> = {
  project: { type: 'string', describe: 'A project folder: also load DIR/capabilities/plugins/<plugin>/permissions, and check DIR/capabilities by default' },
}
const APP_COMMAND_OPTION: NonNullable<CliCommand['options']> = {
  'app-command': { type: 'string', describe: 'An app command to assume exposed (repeatable)' },
}

/** The capability folders whose plugins are loaded: the home's, then the project's. */
function folders(ctx: CliContext, deps: CliDeps): { folders: string[]; capabilityFolder: string } {
  if (ctx.argv.project === undefined) return { folders: [deps.folder], capabilityFolder: deps.folder }
  const project = join(resolve(String(ctx.argv.project)), 'capabilities')
  return { folders: [deps.folder, project], capabilityFolder: project }
}

/** The manifests the CLI checks against (home and project plugins, exposed and --app-command commands). */
export function cliManifests(ctx: CliContext, deps: CliDeps): LoadedManifests {
  return currentManifests(deps.layer, folders(ctx, deps).folders, list(ctx.argv['app-command']))
}

const QUERY_OPTIONS: CliCommand['options'] = {
  file: { type: 'string', describe: 'Capability file (repeatable; default: every file in <agent_home>/capabilities, or the project\'s)' },
  window: { type: 'string', demandOption: true, describe: 'Window label of the caller' },
  webview: { type: 'string', describe: 'Webview label (default: the window label)' },
  url: { type: 'string', describe: 'URL of remote content (default: local app content)' },
  platform: { type: 'string', describe: `Target platform: ${TARGETS.join(', ')} (default: this machine's)` },
  command: { type: 'string', demandOption: true, describe: 'Invoke string: plugin:<ns>|<command> (e.g. plugin:window|set_title) or an app command' },
  ...APP_COMMAND_OPTION,
  ...PROJECT_OPTION,
  'base-dir': { type: 'string', describe: 'NAME=PATH for a path variable, e.g. HOME=/home/me (repeatable)' },
  'scope-url': { type: 'string', describe: 'Also check this URL against the scope' },
  'scope-path': { type: 'string', describe: 'Also check this path against the scope' },
  with: { type: 'string', describe: 'Application the scope check opens with' },
}

interface Evaluated {
  request: AccessRequest
  acl: ResolvedAcl
  decision: ReturnType<ResolvedAcl['check']>
  scope?: { kind: 'url' | 'path'; value: string; verdict: ScopeVerdict }
  capabilities: ReturnType<typeof checkFiles>['capabilities']
  manifests: LoadedManifests['manifests']
}

function evaluate(ctx: CliContext, deps: CliDeps): Evaluated {
  const argv = ctx.argv
  const platform = (argv.platform === undefined ? currentTarget() : String(argv.platform)) as Target
  if (!(TARGETS as readonly string[]).includes(platform)) throw new QueryFailure('invalid-platform', `unknown platform "${platform}", expected one of ${TARGETS.join(', ')} (exact spelling)`)
  const url = argv.url === undefined ? undefined : String(argv.url)
  if (url !== undefined && !URL.canParse(url)) throw new QueryFailure('parse', `--url ${url} is not a URL`)
  if (argv['scope-url'] !== undefined && argv['scope-path'] !== undefined) throw new QueryFailure('parse', 'give --scope-url or --scope-path, not both')
  const dirs: BaseDirectories = { ...deps.baseDirs() }
  for (const pair of list(argv['base-dir'])) {
    const m = /^\$?([A-Z]+)=(.+)$/.exec(pair)
    if (!m || !isPathVariable(m[1]!)) throw new QueryFailure('parse', `--base-dir ${pair}: expected NAME=PATH with NAME one of the path variables (HOME, APPDATA, …)`)
    dirs[m[1] as PathVariable] = m[2]!
  }
  const loaded = cliManifests(ctx, deps)
  const manifests = loaded.manifests
  const files = argv.file === undefined ? listCapabilityFiles(folders(ctx, deps).capabilityFolder) : list(argv.file).map((f) => resolve(f))
  const checked = checkFiles(files, loaded)
  const first = checked.problems[0]
  if (first) {
    const more = checked.problems.length > 1 ? ` (and ${checked.problems.length - 1} more problem${checked.problems.length > 2 ? 's' : ''})` : ''
    throw new QueryFailure(first.kind, formatProblem(first) + more)
  }
  const acl = new ResolvedAcl(checked.capabilities, { platform, manifests })
  const request: AccessRequest = {
    command: String(argv.command),
    window: String(argv.window),
    webview: argv.webview === undefined ? undefined : String(argv.webview),
    origin: url === undefined ? { kind: 'local' } : { kind: 'remote', url },
  }
  const decision = acl.check(request)
  const withApp = argv.with === undefined ? undefined : String(argv.with)
  let scope: Evaluated['scope']
  if (argv['scope-url'] !== undefined) {
    const value = String(argv['scope-url'])
    scope = { kind: 'url', value, verdict: checkUrlScope(value, withApp, decision.scopes) }
  } else if (argv['scope-path'] !== undefined) {
    const value = String(argv['scope-path'])
    scope = { kind: 'path', value, verdict: checkPathScope(value, withApp, decision.scopes, { dirs, requireLiteralLeadingDot: platform !== 'windows' }) }
  }
  return { request, acl, decision, scope, capabilities: checked.capabilities, manifests }
}

/** Runs an evaluation, turning invalid input into exit 2 (JSON error with --json). */
function withFailures(ctx: CliContext, body: () => number | void): number | void {
  try {
    return body()
  } catch (error) {
    if (!(error instanceof QueryFailure)) throw error
    if (ctx.argv.json) ctx.json({ error: { kind: error.kind, message: error.message } })
    else ctx.err(`agent: ${error.message}`)
    return 2
  }
}

export function capabilitiesCommand(deps: CliDeps): CommandDefinition {
  return {
    name: 'capabilities',
    category: 'Security',
    description: 'Capability files: which windows and webviews may call which commands',
    cli: {
      subcommands: {
        check: {
          description: 'Validate capability files (default: <agent_home>/capabilities) and plugin permission files; exit 2 listing every problem',
          args: '[files..]',
          positionals: { files: { type: 'string', array: true, describe: 'Capability files (.json or .toml)' } },
          options: { ...APP_COMMAND_OPTION, ...PROJECT_OPTION, json: { type: 'boolean', describe: 'Print one JSON document' } },
          run(ctx) {
            const given = list(ctx.argv.files)
            const { capabilityFolder } = folders(ctx, deps)
            const files = given.length > 0 ? given.map((f) => resolve(f)) : listCapabilityFiles(capabilityFolder)
            const result = checkFiles(files, cliManifests(ctx, deps))
            if (ctx.argv.json) {
              ctx.json({ ok: result.problems.length === 0, files, capabilities: result.capabilities.map((c) => c.identifier), problems: result.problems, warnings: result.warnings })
            } else {
              for (const w of result.warnings) ctx.out(`warning: ${formatProblem(w)}`)
              for (const p of result.problems) ctx.out(`${formatProblem(p)} [${p.kind}]`)
              if (result.problems.length > 0) ctx.out(`${result.problems.length} problem${result.problems.length > 1 ? 's' : ''} in ${files.length} file${files.length === 1 ? '' : 's'}`)
              else ctx.out(files.length === 0 ? `no capability files in ${capabilityFolder}` : `ok: ${result.capabilities.length} capabilit${result.capabilities.length === 1 ? 'y' : 'ies'} in ${files.length} file${files.length === 1 ? '' : 's'}`)
            }
            return result.problems.length > 0 ? 2 : 0
          },
        },
        query: {
          description: 'Whether a window/webview may invoke a command, and with which scope',
          options: { ...QUERY_OPTIONS, json: { type: 'boolean', describe: 'Print {"allowed", "scopes", "scopeAllowed"}' } },
          examples: [['agent capabilities query --file main.json --window main --command plugin:opener|open_url --scope-url https://example.com --json', 'may window "main" open that URL?']],
          run(ctx) {
            return withFailures(ctx, () => {
              const { decision, scope } = evaluate(ctx, deps)
              const scopeAllowed = scope ? decision.allowed && scope.verdict.allowed : undefined
              if (ctx.argv.json) ctx.json({ allowed: decision.allowed, scopes: { allow: decision.scopes.allow, deny: decision.scopes.deny }, ...(scope ? { scopeAllowed } : {}) })
              else ctx.out(`${decision.allowed ? 'allowed' : 'denied'}: ${decision.reason}${scope ? `\nscope: ${scopeAllowed ? 'allowed' : 'denied'} (${scope.verdict.reason})` : ''}`)
            })
          },
        },
        explain: {
          description: 'Explain in words which capability and permission grant or deny a call, and why',
          options: QUERY_OPTIONS,
          run(ctx) {
            return withFailures(ctx, () => {
              const evaluated = evaluate(ctx, deps)
              ctx.out(explain({ ...evaluated }))
            })
          },
        },
        schema: {
          description: 'Print a JSON Schema of capability files (for editors: "$schema"), listing every known permission identifier',
          options: { 'app-command': { type: 'string', describe: 'An app command to include (repeatable)' }, ...PROJECT_OPTION },
          run(ctx) {
            ctx.json(capabilitySchema(cliManifests(ctx, deps).manifests))
          },
        },
        permissions: permissionsCommand((ctx) => cliManifests(ctx, deps), { ...APP_COMMAND_OPTION, ...PROJECT_OPTION }),
        token: {
          description: 'Issue a signed token binding a frontend to a window (and webview) label',
          options: {
            window: { type: 'string', demandOption: true, describe: 'Window label' },
            webview: { type: 'string', describe: 'Webview label (default: the window label)' },
            ttl: { type: 'number', describe: `Lifetime in seconds (default ${deps.tokenTtl})` },
            json: { type: 'boolean', describe: 'Print {token, window, webview, expires_at}' },
          },
          run(ctx) {
            const issued = issueToken(loadSecret(deps.settings.home), {
              window: String(ctx.argv.window),
              webview: ctx.argv.webview === undefined ? undefined : String(ctx.argv.webview),
              ttlSeconds: ctx.argv.ttl === undefined ? deps.tokenTtl : Number(ctx.argv.ttl),
            })
            if (ctx.argv.json) ctx.json({ token: issued.token, window: issued.window, webview: issued.webview, expires_at: new Date(issued.expiresAt * 1000).toISOString() })
            else ctx.out(issued.token)
          },
        },
      },
    },
  }
}
