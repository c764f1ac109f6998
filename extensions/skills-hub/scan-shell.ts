// The scanner's reading of shell-like lines: the surface a shell would see after quote tricks
// (`.ss''h`, `"cu"rl`, `${HOME}`, `$'\x63url'`), split into simple commands with wrappers (sudo, env,
// nohup …) and path prefixes removed, to tell destruction of home or the system from ordinary cleanup,
// and secrets (environment, secret-named variables, key and credential files) flowing to the network.

export interface LineFinding {
  rule: string
  severity: 'caution' | 'dangerous'
  message: string
}

/** Quote and escape tricks undone where they change nothing to the shell (quoted text with spaces stays). */
export function shellSurface(line: string): string {
  return line
    .replace(/\$'((?:\\.|[^'\\])*)'/g, (_, body: string) =>
      body.replace(/\\x([0-9a-fA-F]{1,2})|\\([0-7]{1,3})|\\(.)/g, (_m, hex?: string, oct?: string, ch?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : oct ? String.fromCharCode(parseInt(oct, 8)) : ch!)),
    )
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, '$$$1')
    .replace(/(["'])([^"'\s]*)\1/g, '$2')
    .replace(/\\(?=[A-Za-z/~.])/g, '')
}

const WRAPPERS = new Set(['sudo', 'doas', 'env', 'nice', 'nohup', 'command', 'exec', 'time', 'timeout', 'xargs', 'busybox', 'stdbuf', 'ionice', 'builtin', 'caffeinate'])
const WRAPPER_ARG_OPTIONS = new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-U', '-r', '-t', '-n', '-c', '-s', '-k', '-I', '-L', '-P'])

/** Each simple command's words, wrappers and program paths removed (`sudo -u root /bin/rm -rf ~` → rm -rf ~). */
export function simpleCommands(surface: string): string[][] {
  const out: string[][] = []
  for (const segment of surface.split(/\|\||&&|[;|&\n(){}`]|\$\(/)) {
    const words = segment.trim().split(/\s+/).filter(Boolean)
    while (words.length) {
      const program = words[0]!.replace(/^.*\//, '')
      if (WRAPPERS.has(program)) {
        words.shift()
        while (words.length && (words[0]!.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!) || /^\d+[smhd]?$/.test(words[0]!))) {
          const option = words.shift()!
          if (WRAPPER_ARG_OPTIONS.has(option)) words.shift()
        }
        continue
      }
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) {
        words.shift()
        continue
      }
      words[0] = program
      break
    }
    if (words.length) out.push(words)
  }
  return out
}

const SYSTEM_DIRS = /^(?:\/|~|\$HOME|\/(?:home|root|Users|etc|usr|bin|sbin|lib|lib32|lib64|var|boot|opt|srv|sys|proc|dev|System|Library|Applications|private))$/

/** `/`, home, a system directory, or everything inside one (`/*`, `~/*`, `$HOME/`, `/etc/.`). */
function dangerousTarget(word: string): boolean {
  const target = word.replace(/(?:\/[*.])+$/, '').replace(/\/+$/, '')
  return SYSTEM_DIRS.test(target || '/')
}

const isRecursiveFlag = (w: string) => /^-[a-zA-Z]*[rR][a-zA-Z]*$/.test(w) || w === '--recursive'

/** Destruction judged per simple command. */
export function destruction(surface: string): LineFinding[] {
  const found: LineFinding[] = []
  for (const [program, ...args] of simpleCommands(surface)) {
    const operands = args.filter((a) => !a.startsWith('-'))
    if (program === 'rm' && args.some(isRecursiveFlag)) {
      if (operands.some(dangerousTarget)) found.push({ rule: 'destroy-root', severity: 'dangerous', message: 'deletes the file system root, home or a system directory' })
      else found.push({ rule: 'recursive-delete', severity: 'caution', message: 'deletes files recursively' })
    } else if (program === 'find' && operands[0] && dangerousTarget(operands[0]) && (args.includes('-delete') || /-exec(?:dir)?\s+(?:\S*\/)?(?:rm|shred)\b/.test(args.join(' ')))) {
      found.push({ rule: 'destroy-root', severity: 'dangerous', message: 'deletes the file system root, home or a system directory' })
    } else if ((program === 'chmod' || program === 'chown' || program === 'chgrp') && args.some(isRecursiveFlag) && operands.slice(1).some(dangerousTarget)) {
      found.push({ rule: 'destroy-permissions', severity: 'dangerous', message: 'changes ownership or permissions of the root, home or a system directory' })
    } else if (/^(?:mkfs(?:\.\w+)?|wipefs|fdisk|sfdisk|parted)$/.test(program!) || ((program === 'dd' || program === 'shred') && args.some((a) => /^(?:of=)?\/dev\/(?:sd|nvme|hd|disk|mmcblk|vd|xvd)/.test(a)))) {
      found.push({ rule: 'destroy-disk', severity: 'dangerous', message: 'overwrites, partitions or formats a disk' })
    }
  }
  if (/>\s*\/dev\/(?:sd|nvme|hd|disk|mmcblk|vd|xvd)[a-z0-9]*/.test(surface) || /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/.test(surface)) {
    found.push({ rule: 'destroy-disk', severity: 'dangerous', message: 'overwrites a disk or exhausts the machine (fork bomb)' })
  }
  return found
}

const SECRET_WORDS = /(?:^|_)(?:API_?KEY|KEYS?|TOKENS?|SECRETS?|PASSWORD|PASSWD|PASS|PASSPHRASE|CREDENTIALS?|CREDS|AUTH|COOKIES?|SESSION|PRIVATE|PAT|PWD_HASH)(?:_|$)|(?:APIKEY|SECRET|TOKEN|PASSWORD|PASSWD)/i

/** Variable names that hold secrets by convention (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `db_password`). */
export function secretName(name: string): boolean {
  return name !== 'PWD' && name !== 'OLDPWD' && SECRET_WORDS.test(name)
}

/** The whole environment, as shell, Python, Node, PowerShell and Ruby spell it. */
const ENV_DUMP = /(?:^|[;&|(`])\s*(?:env|set|export\s+-p|declare\s+-[a-zA-Z]*[xp][a-zA-Z]*|typeset\s+-x|compgen\s+-[ve])(?=\s*(?:$|[|;&)`>]))|\bprintenv\b|\/proc\/[^/\s]+\/environ\b|\bos\.environ(?!\s*(?:\[|\.get\b|\.setdefault\b|\.pop\b))|\bprocess\.env(?!\s*(?:\.|\[|\?\.))|\b(?:Get-ChildItem|gci|dir|ls)\s+env:|\bENV\.to_h\b/i
/** Key, credential and history files, the agent's own home, and the system password store. */
const SECRET_FILE = /(?:~|\$HOME|\/root|\/home\/[^/\s]+|\/Users\/[^/\s]+)\/\.(?:ssh|aws|gnupg|netrc|git-credentials|docker\/config\.json|kube|npmrc|pypirc|config\/gh|password-store|agent|bash_history|zsh_history)\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|(?<![\w.$-])\.env(?!\.(?:example|sample|template|dist)\b)(?:\.[\w-]+)?\b(?![\w-])|\/etc\/(?:shadow|gshadow|sudoers)\b|\$AGENT_HOME\b|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b|\bsecret-tool\s+lookup\b/i
/** A secret-named variable as shell, Python, Node and PowerShell read it. */
const SECRET_VAR = /\$([A-Za-z_][A-Za-z0-9_]*)|\bprintenv\s+([A-Za-z_][A-Za-z0-9_]*)|\bos\.(?:environ\[|environ\.get\(|getenv\()\s*['"]([A-Za-z_][A-Za-z0-9_]*)|\bprocess\.env(?:\.|\[\s*['"])([A-Za-z_][A-Za-z0-9_]*)|\$env:([A-Za-z_][A-Za-z0-9_]*)/g
/** Anything that reaches the network. */
const SINK = /(?:^|[\s;&|(`/])(?:curl|wget|nc|ncat|netcat|socat|ssh|scp|sftp|rsync|ftp|tftp|telnet|xh|http|https|aria2c|nslookup|dig|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)(?=\s|$)|\/dev\/(?:tcp|udp)\/|\brequests\.(?:get|post|put|patch|request)\b|\burllib\b|\bhttp\.client\b|\bsocket\.|\bfetch\s*\(|\baxios\b|\bhttps?\.(?:request|get)\b|\bXMLHttpRequest\b|\bsendBeacon\b|\bNet::HTTP\b/i
/** Where a credential is presented to a service rather than sent as data: auth headers, curl -u. */
const AUTH_ARGS = /(?:^|\s)(?:-H|--header|-u|--user|--oauth2-bearer)\s*(?:"[^"]*"|'[^']*'|\S+)/g
/** ssh/scp identity options name a key to use, not one to send. */
const IDENTITY_ARGS = /(?:^|\s)-i\s*\S+|-o\s*IdentityFile=\S+|\bssh-(?:keygen|add|copy-id)\b[^|;&]*/g

/** The line without arguments that only name a key to use (`ssh -i key`, `ssh-keygen -f key`). */
export function withoutKeyUse(text: string): string {
  return text.replace(IDENTITY_ARGS, ' ')
}

function secretVariables(text: string, tainted: ReadonlySet<string>): string[] {
  const names: string[] = []
  for (const m of text.matchAll(SECRET_VAR)) {
    const name = m.slice(1).find(Boolean)!
    if (secretName(name) || tainted.has(name)) names.push(name)
  }
  for (const name of tainted) if (new RegExp(String.raw`(?<![\w$])${name}\b`).test(text) && !names.includes(name)) names.push(name)
  return names
}

function hasSecretSource(text: string, tainted: ReadonlySet<string>): boolean {
  return ENV_DUMP.test(text) || SECRET_FILE.test(withoutKeyUse(text)) || secretVariables(text, tainted).length > 0
}

/**
 * Secrets sent over the network on one logical line: dangerous; a secret-named variable presented
 * only as an auth header: caution (an API client does that; the host decides whether it is theft).
 * `tainted` carries names assigned from a secret source on earlier lines, and gains new ones.
 */
export function exfiltration(surface: string, tainted: Set<string>): LineFinding[] {
  const assigned = /^\s*(?:export\s+|local\s+|const\s+|let\s+|var\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*(.+)$/.exec(surface)
  if (assigned && hasSecretSource(assigned[2]!, tainted)) tainted.add(assigned[1]!)
  if (!SINK.test(surface)) return []
  const withoutAuth = surface.replace(AUTH_ARGS, ' ')
  if (hasSecretSource(withoutAuth, tainted)) return [{ rule: 'exfil-secrets', severity: 'dangerous', message: 'sends secrets (environment, secret variables, key or credential files) over the network' }]
  if (secretVariables(surface, tainted).length) return [{ rule: 'secret-in-request', severity: 'caution', message: 'presents a secret variable to a web service (check the host is the one it belongs to)' }]
  return []
}
