// The agent's CLI as the command judge sees it: an allowlist of the commands that only read (with
// the options they take and how many operands), and the finding of every other command. Read from
// each extension's CLI registration (`agent <command> --help`). A command not listed here (a new
// one, a plugin's), or given an option not listed, needs approval until it is listed.

import type { FindingKey } from './patterns.ts'

/** A command that only reads, when given only these options and at most `args` operands. */
export interface ReadOnly {
  /** Boolean options (`--json`, `--no-json`, `--json=false`). */
  flags?: string[]
  /** Options that take a value (a file it reads is judged as every program's arguments are: secret-read). */
  values?: string[]
  /** Operands it takes (Infinity: any number). */
  args?: number
  /** Only reads when this holds, given which flags are on (`update --check`, `model --list`). */
  when?: (on: (flag: string) => boolean) => boolean
}

export interface AgentCommand {
  /** The finding when it does not only read; inherited by subcommands (default `agent-config`). */
  key?: FindingKey
  read?: ReadOnly
  sub?: Record<string, AgentCommand>
}

const json: ReadOnly = { flags: ['json'] }
const listing: AgentCommand = { read: json }
/** A nested agent (its own approvals) or what it is configured to run. */
const run: AgentCommand = { key: 'agent-run' }
/** Someone else gets in: a paired stranger, a capability token, a dashboard link, a copy of the state. */
const access: AgentCommand = { key: 'agent-access' }
const CAPABILITY_QUERY: ReadOnly = { values: ['file', 'window', 'webview', 'url', 'platform', 'command', 'app-command', 'project', 'base-dir', 'scope-url', 'scope-path', 'with'] }

export const AGENT_CLI: AgentCommand = {
  sub: {
    acp: run,
    capabilities: {
      sub: {
        check: { read: { flags: ['json'], values: ['app-command', 'project'], args: Infinity } },
        query: { read: { ...CAPABILITY_QUERY, flags: ['json'] } },
        explain: { read: CAPABILITY_QUERY },
        schema: { read: { values: ['app-command', 'project'] } },
        permissions: { read: { flags: ['json'], values: ['app-command', 'project'], args: 1 } },
        token: access,
      },
    },
    chat: run,
    config: { sub: { show: listing, get: { read: { ...json, args: 1 } }, path: { read: {} } } },
    cron: { sub: { list: listing, runs: { read: { flags: ['json'], values: ['limit'], args: 1 } }, run } },
    dashboard: access,
    doctor: { read: { flags: ['json', 'offline'], values: ['timeout'] } },
    extensions: { sub: { list: listing } },
    gateway: {
      sub: {
        run,
        start: run,
        stop: { key: 'agent-self' },
        restart: { key: 'agent-self' },
        uninstall: { key: 'agent-self' },
        status: listing,
        // Without --enable/--disable it only shows the platforms.
        setup: listing,
        'slack-manifest': { read: { flags: ['json'], values: ['name', 'command'] } },
        pair: { sub: { list: listing, approve: access } },
      },
    },
    insights: { read: { flags: ['json'], values: ['days', 'source'] } },
    // add and configure are listed for the server command and environment they give (agent-cli.ts).
    mcp: { sub: { list: listing, test: run, serve: run, add: {}, configure: {} } },
    // Flags save a choice; alone in a terminal it asks (and saves); --list and --json only print.
    model: { read: { flags: ['list', 'json'], when: (on) => on('list') || on('json') } },
    plugins: { sub: { list: listing } },
    sessions: {
      sub: {
        list: { read: { flags: ['json'], values: ['limit', 'source'] } },
        search: { read: { flags: ['json', 'raw', 'recent'], values: ['limit', 'source'], args: Infinity } },
        show: { read: { ...json, args: 1 } },
      },
    },
    skills: {
      sub: {
        search: { read: { flags: ['json'], values: ['hub', 'site'], args: 1 } },
        inspect: { read: { ...json, args: 1 } },
        check: { read: { ...json, args: 1 } },
        list: listing,
      },
    },
    status: { read: { flags: ['json', 'check'], values: ['timeout'] } },
    storage: { sub: { 'migrate-to': access } },
    tools: { sub: { list: listing } },
    update: { read: { flags: ['check', 'json'], when: (on) => on('check') } },
  },
}
