// The dangerous-command pattern list, kept as data in this one file. No maintained npm package offers
// such a list as a library (checked: cc-safety-net is a coding-agent CLI hook, @sureshsankaran/
// opencode-destructive-check an OpenCode plugin; neither exports its rules). Sources:
//   - hermes-agent tools/approval.py: HARDLINE_PATTERNS (never allowed) and DANGEROUS_PATTERNS,
//     as summarised in shared/reference/agent-behaviours.md §2.8 (written anew here, not copied);
//   - agent/tool_dispatch_helpers.py `_is_destructive_command` of the same project (destructive verbs).
// Every entry has a stable `key`: `/approve session` and `/approve always` remember keys, not commands.
// Matching runs on the normalised command (see detect.ts), case-insensitively.

export interface CommandPattern {
  key: string
  description: string
  pattern: RegExp
}

/** Start of a command word: line start, after a separator, subshell or wrapper (sudo, env, exec …). */
const CMD = String.raw`(?:^|[;&|\n\x60(]|\$\()\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\w+=\S*\s+)*)?(?:(?:exec|nohup|setsid|time|command|builtin)\s+)*`
const RM = String.raw`${CMD}rm\s+(?:-\S+\s+|--\s+)*`
const SYSTEM_DIRS = String.raw`(?:bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var)`
const re = (source: string) => new RegExp(source, 'i')

/** Never allowed, whatever the mode or an approval says. */
export const NEVER_ALLOWED: readonly CommandPattern[] = [
  { key: 'rm-root', description: 'delete of the root filesystem', pattern: re(String.raw`${RM}(?:\S+\s+)*\/+(?:\.{1,2}\/*)*\*?(?=\s|$|;|&|\|)`) },
  { key: 'rm-system-dir', description: 'delete of a system directory', pattern: re(String.raw`${RM}(?:\S+\s+)*\/+${SYSTEM_DIRS}\/*\*?(?=\s|$|;|&|\|)`) },
  { key: 'rm-home', description: 'delete of the home directory', pattern: re(String.raw`${RM}(?:\S+\s+)*(?:~|\$home)\/*\*?(?=\s|$|;|&|\|)`) },
  { key: 'mkfs', description: 'format a filesystem (mkfs)', pattern: re(String.raw`${CMD}mkfs(?:\.[a-z0-9]+)?\b`) },
  { key: 'dd-block-device', description: 'dd onto a raw block device', pattern: re(String.raw`\bdd\b[^\n]*\bof=\/dev\/(?:sd|nvme|hd|mmcblk|vd|xvd|disk)[a-z0-9]*`) },
  { key: 'redirect-block-device', description: 'write redirected onto a raw block device', pattern: re(String.raw`>\s*\/dev\/(?:sd|nvme|hd|mmcblk|vd|xvd|disk)[a-z0-9]*`) },
  { key: 'fork-bomb', description: 'fork bomb', pattern: re(String.raw`:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:`) },
  { key: 'kill-all', description: 'kill every process (kill -1)', pattern: re(String.raw`${CMD}kill\s+(?:-\S+\s+)*-1\b`) },
  { key: 'shutdown', description: 'shut down or reboot the machine', pattern: re(String.raw`${CMD}(?:shutdown|reboot|halt|poweroff)\b|${CMD}(?:tel)?init\s+[06]\b|${CMD}systemctl\s+(?:poweroff|reboot|halt|kexec)\b`) },
  { key: 'chmod-root', description: 'recursive permission change of the root filesystem', pattern: re(String.raw`${CMD}ch(?:mod|own)\s+(?:-\S+\s+)*\S+\s+\/(?=\s|$)`) },
]

/** Need approval (manual, smart) unless approved for the session or always. */
export const DANGEROUS: readonly CommandPattern[] = [
  { key: 'recursive-delete', description: 'recursive delete', pattern: re(String.raw`${RM.replace(String.raw`(?:-\S+\s+|--\s+)*`, '')}(?:\S+\s+)*?(?:-[a-z]*r[a-z]*|--recursive)\b`) },
  { key: 'delete-absolute-path', description: 'delete in an absolute or home path', pattern: re(String.raw`${RM}(?:\S+\s+)*(?:\/|~)`) },
  { key: 'find-delete', description: 'find that deletes (-delete, -exec rm)', pattern: re(String.raw`\bfind\b[^\n]*(?:-delete\b|-exec\s+rm\b|-execdir\s+rm\b)`) },
  { key: 'xargs-rm', description: 'xargs rm', pattern: re(String.raw`\bxargs\s+(?:-\S+\s+)*rm\b`) },
  { key: 'world-writable', description: 'world-writable permissions', pattern: re(String.raw`${CMD}chmod\s+(?:-\S+\s+)*(?:0?[0-7]?[67][67]|[ao]\+\w*w)\b`) },
  { key: 'chown-recursive', description: 'recursive ownership change', pattern: re(String.raw`${CMD}chown\s+(?:\S+\s+)*-[a-z]*R`) },
  { key: 'disk-tools', description: 'partition or wipe a disk', pattern: re(String.raw`${CMD}(?:fdisk|sfdisk|parted|wipefs|sgdisk|shred)\b`) },
  { key: 'dd', description: 'raw copy with dd', pattern: re(String.raw`${CMD}dd\s+[^\n]*\bof=`) },
  { key: 'sql-drop', description: 'SQL DROP', pattern: re(String.raw`\bdrop\s+(?:table|database|schema|index)\b`) },
  { key: 'sql-delete-all', description: 'SQL DELETE without WHERE', pattern: re(String.raw`\bdelete\s+from\s+[\w."\x60]+\s*(?:;|"|'|$)`) },
  { key: 'sql-truncate', description: 'SQL TRUNCATE', pattern: re(String.raw`\btruncate\s+(?:table\s+)?[\w."\x60]+\s*(?:;|"|'|$)`) },
  { key: 'system-config-write', description: 'overwrite system configuration', pattern: re(String.raw`(?:>\s*|\btee\s+(?:-a\s+)?|\b(?:cp|mv|install|ln)\s+(?:\S+\s+)+)\/etc\/`) },
  { key: 'service-control', description: 'stop or restart a system service', pattern: re(String.raw`${CMD}(?:systemctl\s+(?:stop|restart|disable|mask|kill)|service\s+\S+\s+(?:stop|restart))\b`) },
  { key: 'kill-processes', description: 'kill processes by name or with SIGKILL', pattern: re(String.raw`${CMD}(?:killall|pkill)\b|${CMD}kill\s+-(?:9|kill|sigkill)\b`) },
  { key: 'pipe-to-shell', description: 'pipe content into a shell or interpreter', pattern: re(String.raw`\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:ba|z|k|da|fi)?sh\b|\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node)\s*(?:-\s*)?(?:$|;|&|\|)`) },
  { key: 'remote-script', description: 'run a remote script through substitution', pattern: re(String.raw`(?:ba|z|k|da)?sh\s+<\(\s*(?:curl|wget)\b|(?:\$\(|\x60)\s*(?:curl|wget)\b`) },
  { key: 'inline-script', description: 'run an inline script (sh -c, python -c, node -e …)', pattern: re(String.raw`${CMD}(?:(?:ba|z|k|da)?sh\s+-\w*c|python[0-9.]*\s+-\w*c|perl\s+-\w*e|ruby\s+-\w*e|node\s+-\w*[ep])\b`) },
  { key: 'heredoc-script', description: 'run a script from a heredoc', pattern: re(String.raw`${CMD}(?:(?:ba|z|k|da)?sh|python[0-9.]*|perl|ruby|node)\s+(?:-\S+\s+)*<<`) },
  { key: 'git-destructive', description: 'destructive git operation (reset --hard, force push, clean -f, branch -D)', pattern: re(String.raw`\bgit\s+(?:-\S+\s+)*(?:reset\s+(?:\S+\s+)*--hard|push\s+(?:\S+\s+)*(?:-f\b|--force)|clean\s+(?:\S+\s+)*-[a-z]*f|branch\s+(?:\S+\s+)*-D\b)`) },
  { key: 'credential-files', description: 'write to SSH, shell start-up or credential files', pattern: re(String.raw`(?:>\s*|\btee\s+(?:-a\s+)?|\b(?:sed|perl)\s+(?:\S+\s+)*-i\S*\s+(?:\S+\s+)*|\b(?:cp|mv)\s+(?:\S+\s+)+)(?:~|\$home|\/home\/\w+|\/root)?\/?\.(?:ssh\/|bashrc|zshrc|profile|bash_profile|aws\/credentials|netrc|gnupg\/|config\/gh\/)`) },
  { key: 'agent-config', description: "overwrite the agent's own config or .env", pattern: re(String.raw`(?:>\s*|\btee\s+(?:-a\s+)?|\b(?:sed|perl)\s+(?:\S+\s+)*-i\S*\s+(?:\S+\s+)*|\b(?:cp|mv)\s+(?:\S+\s+)+)\S*(?:\.agent\/|agent_home)\S*(?:config\.yaml|\.env)\b|(?:>\s*)\.env\b`) },
  { key: 'agent-self', description: 'stop or kill the agent itself', pattern: re(String.raw`${CMD}agent\s+gateway\s+(?:stop|restart|uninstall)\b|${CMD}(?:pkill|killall)\s+(?:-\S+\s+)*agent\b`) },
  { key: 'container-destructive', description: 'stop, kill or prune containers', pattern: re(String.raw`${CMD}(?:docker|podman)\s+(?:compose\s+down|(?:container\s+)?(?:rm|stop|kill|restart)|system\s+prune|volume\s+(?:rm|prune))\b`) },
  { key: 'chmod-exec-run', description: 'make a file executable and run it at once', pattern: re(String.raw`\bchmod\s+(?:-\S+\s+)*\+x\s+(\S+)\s*(?:&&|;)\s*(?:\.\/|\/|sh\s|bash\s)`) },
  { key: 'crontab-remove', description: 'remove the crontab', pattern: re(String.raw`${CMD}crontab\s+(?:-\S+\s+)*-r\b`) },
  { key: 'firewall-flush', description: 'flush firewall rules', pattern: re(String.raw`${CMD}(?:iptables|ip6tables|nft)\s+(?:-\S+\s+)*(?:-F|--flush|flush\s+ruleset)\b`) },
  { key: 'windows-delete', description: 'Windows recursive delete or encoded PowerShell', pattern: re(String.raw`\b(?:del|rd|rmdir)\s+\/s\b|\bremove-item\b[^\n]*-recurse|\bpowershell(?:\.exe)?\s+[^\n]*-(?:e|enc|encodedcommand)\b`) },
]
