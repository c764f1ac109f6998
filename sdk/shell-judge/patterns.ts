// The finding catalogue: every key the command rules (rules.ts) can report, its tier and its
// description, plus the few checks that are about text inside arguments (SQL given to a database
// client). Keys are stable: `/approve session`, `/approve always` and `approvals.allowlist` remember
// keys, not commands; add new keys, never rename old ones. Sources of the original list:
//   - hermes-agent tools/approval.py: HARDLINE_PATTERNS (never allowed) and DANGEROUS_PATTERNS,
//     as summarised in shared/reference/agent-behaviours.md §2.8 (written anew here, not copied);
//   - agent/tool_dispatch_helpers.py `_is_destructive_command` of the same project (destructive verbs).
// No maintained npm package offers such a list as a library (checked: cc-safety-net is a coding-agent
// CLI hook, @sureshsankaran/opencode-destructive-check an OpenCode plugin; neither exports its rules).

export type Tier = 'never' | 'dangerous'

export interface FindingInfo {
  tier: Tier
  description: string
}

const never = (description: string): FindingInfo => ({ tier: 'never', description })
const dangerous = (description: string): FindingInfo => ({ tier: 'dangerous', description })

export const FINDINGS = {
  // Never allowed, whatever the mode or an approval says.
  'rm-root': never('delete of the root filesystem'),
  'rm-system-dir': never('delete of a system directory'),
  'rm-home': never('delete of the home directory'),
  mkfs: never('format a filesystem (mkfs)'),
  'dd-block-device': never('dd onto a raw block device'),
  'redirect-block-device': never('write onto a raw block device'),
  'fork-bomb': never('fork bomb'),
  'kill-all': never('kill every process (kill -1)'),
  shutdown: never('shut down or reboot the machine'),
  'chmod-root': never('recursive permission change of the root filesystem or a system directory'),

  // Need approval (manual, smart) unless approved for the session or always.
  'recursive-delete': dangerous('recursive delete'),
  'delete-absolute-path': dangerous('delete in an absolute or home path'),
  'delete-unknown-path': dangerous('delete of a path only known at run time ($VAR, $(…))'),
  'find-delete': dangerous('find that deletes (-delete, -exec rm)'),
  'xargs-rm': dangerous('xargs rm'),
  'world-writable': dangerous('world-writable permissions'),
  'chown-recursive': dangerous('recursive ownership change'),
  setuid: dangerous('set-user-ID or set-group-ID bit (the file runs with its owner\'s or group\'s rights)'),
  'system-permissions': dangerous('permission or ownership change of the root, a system directory or file, a home or a disk'),
  'disk-tools': dangerous('partition or wipe a disk'),
  dd: dangerous('raw copy with dd'),
  'sql-drop': dangerous('SQL DROP'),
  'sql-delete-all': dangerous('SQL DELETE without WHERE'),
  'sql-truncate': dangerous('SQL TRUNCATE'),
  'system-config-write': dangerous('overwrite system configuration'),
  'service-control': dangerous('stop or restart a system service'),
  'kill-processes': dangerous('kill processes by name, a process group or with SIGKILL'),
  'pipe-to-shell': dangerous('pipe content into a shell or interpreter'),
  'remote-script': dangerous('run a script from a process substitution (source <(…), bash <(curl …))'),
  'inline-script': dangerous('run an inline script (python -c, node -e, perl -e, sh -c with a run-time body …)'),
  'heredoc-script': dangerous('run a script from a heredoc or here-string'),
  'git-destructive': dangerous('destructive git operation (reset --hard, force push, clean -f, branch -D)'),
  'credential-files': dangerous('write to SSH, shell start-up, credential or login files'),
  'agent-config': dangerous("write into the agent's own home (config, .env, extensions) or project settings, or change the agent's settings or state through its CLI (agent config set, mcp add, plugins install, cron add …)"),
  'git-control': dangerous("write a git repository's hooks or config (commands git runs)"),
  'agent-self': dangerous('stop or kill the agent itself'),
  'agent-run': dangerous("run the agent itself (a nested agent with its own approvals: chat, acp, gateway run, cron run, MCP serve/test) or load the project's extensions into it"),
  'agent-access': dangerous("give others access to the agent or its data (approve a DM pairing, issue a capability token, a dashboard sign-in link, copy its state to a database)"),
  'container-destructive': dangerous('stop, kill or prune containers'),
  'infra-destroy': dangerous('destroy cloud, cluster or database resources (terraform destroy, kubectl delete, aws … delete-*, FLUSHALL, docker volume rm …)'),
  'chmod-exec-run': dangerous('make a file executable and run it at once'),
  'crontab-remove': dangerous('remove the crontab'),
  'crontab-replace': dangerous('replace the crontab (commands that run later)'),
  'firewall-flush': dangerous('flush firewall rules'),
  'windows-delete': dangerous('Windows recursive delete or encoded PowerShell'),
  'dynamic-command': dangerous('program name only known at run time ($VAR, $(…), glob)'),
  eval: dangerous('eval of a string as shell code'),
  'process-environ': dangerous("read of a process's environment (/proc/*/environ)"),
  'network-shell': dangerous('a shell or command wired to the network (/dev/tcp, nc -e, socat exec:)'),
  'secret-read': dangerous("read of a secret file (private keys, credentials, the agent's .env)"),
  unparseable: dangerous('command the shell parser could not read completely'),
} as const satisfies Record<string, FindingInfo>

export type FindingKey = keyof typeof FINDINGS

/** SQL that destroys data, checked in what a database client is given (arguments, heredoc; see infra.ts). */
export const SQL_PATTERNS: ReadonlyArray<{ key: FindingKey; pattern: RegExp }> = [
  { key: 'sql-drop', pattern: /\bdrop\s+(?:table|database|schema|index)\b/im },
  { key: 'sql-delete-all', pattern: /\bdelete\s+from\s+[\w."`]+\s*(?:;|$)/im },
  { key: 'sql-truncate', pattern: /\btruncate\s+(?:table\s+)?[\w."`]+\s*(?:;|$)/im },
]

/** Database clients whose arguments and input are SQL. */
export const DB_CLIENTS = new Set(['psql', 'mysql', 'mariadb', 'sqlite3', 'sqlite', 'duckdb', 'sqlcmd', 'clickhouse-client', 'clickhouse', 'cockroach', 'cqlsh', 'pgcli', 'mycli', 'litecli', 'usql'])
