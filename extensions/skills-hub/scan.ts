// The content scan run on every file of a skill before it is installed: patterns of exfiltration,
// remote code execution, persistence, destruction and prompt injection. The verdict is the worst
// finding: `safe` (none), `caution` (risky but common), `dangerous` (no legitimate skill needs it).

export type Severity = 'caution' | 'dangerous'
export type Verdict = 'safe' | Severity

export interface Finding {
  file: string
  line: number
  rule: string
  severity: Severity
  /** What it means, for a human. */
  message: string
  excerpt: string
}

export interface ScanResult {
  verdict: Verdict
  findings: Finding[]
}

interface Rule {
  id: string
  severity: Severity
  message: string
  pattern: RegExp
}

const SECRET = String.raw`\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\b`

const RULES: readonly Rule[] = [
  // Exfiltration: secrets or private files sent over the network.
  { id: 'exfil-secret-http', severity: 'dangerous', message: 'sends a secret variable over the network', pattern: new RegExp(String.raw`\b(curl|wget|fetch|http|Invoke-WebRequest|requests\.(get|post))\b[^\n]*${SECRET}`, 'i') },
  { id: 'exfil-env-dump', severity: 'dangerous', message: 'pipes the whole environment to a network command', pattern: /\b(env|printenv|set)\b\s*\|\s*(curl|wget|nc|ncat)\b/i },
  { id: 'exfil-private-files', severity: 'dangerous', message: 'reads private keys or credential files', pattern: /(~|\$HOME|\/root|\/home\/[^/\s]+)\/\.(ssh\/(id_[a-z0-9]+|authorized_keys)|aws\/credentials|netrc|gnupg|docker\/config\.json|kube\/config)|\/etc\/shadow/i },
  { id: 'exfil-agent-secrets', severity: 'dangerous', message: "reads the agent's own secrets (.env, auth files)", pattern: /(~|\$HOME|\$AGENT_HOME)\/\.agent\/(\.env|auth)|\bcat\s+[^\n|;]*\.env\b[^\n]*\|\s*(curl|wget|nc)\b/i },
  { id: 'exfil-upload-file', severity: 'dangerous', message: 'uploads local files with curl', pattern: /\bcurl\b[^\n]*(-F\s*\S*=@|--data-binary\s+@|-d\s+@|-T\s+)(~|\/|\$HOME)/i },
  // Remote shells and code from the network.
  { id: 'reverse-shell', severity: 'dangerous', message: 'opens a reverse shell', pattern: /\/dev\/tcp\/|\b(nc|ncat|netcat)\b[^\n]*\s-(e|c)\s|\bsocat\b[^\n]*exec:|\bbash\s+-i\s*>&/i },
  { id: 'obfuscated-exec', severity: 'dangerous', message: 'runs decoded (obfuscated) code', pattern: /base64\s+(-d|--decode)[^\n]*\|\s*(ba|z)?sh\b|\beval\s*\(\s*(atob|Buffer\.from)\(|exec\(\s*(base64\.b64decode|codecs\.decode)/i },
  { id: 'remote-script', severity: 'caution', message: 'pipes a downloaded script into a shell', pattern: /\b(curl|wget)\b[^\n|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b|\b(iex|Invoke-Expression)\b[^\n]*(DownloadString|iwr|Invoke-WebRequest)/i },
  { id: 'eval-remote', severity: 'dangerous', message: 'evaluates code fetched from the network', pattern: /\beval\s+["'`]?\$\((curl|wget)\b/i },
  // Persistence and privilege.
  { id: 'persistence-shell-rc', severity: 'dangerous', message: 'modifies shell start-up files', pattern: />>?\s*(~|\$HOME)\/\.(bashrc|zshrc|profile|bash_profile)\b/i },
  { id: 'persistence-scheduler', severity: 'dangerous', message: 'installs a scheduled or start-up job', pattern: /\bcrontab\s+(-[a-z]*\s+)*-?\s*$|\|\s*crontab\b|\bsystemctl\s+(--user\s+)?enable\b|\blaunchctl\s+load\b/im },
  { id: 'sudo', severity: 'caution', message: 'runs commands as root', pattern: /(^|[\s;&|(`])sudo\s+\S/m },
  // Destruction.
  { id: 'destroy-root', severity: 'dangerous', message: 'deletes the file system root or home', pattern: /\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]+\s+)*(\/|~|\$HOME|\/\*)(\s|$|;)/ },
  { id: 'destroy-disk', severity: 'dangerous', message: 'overwrites or formats a disk', pattern: /\bmkfs(\.\w+)?\s|\bdd\b[^\n]*\bof=\/dev\/(sd|nvme|hd|disk)|:\(\)\s*\{\s*:\|:&\s*\};:/ },
  { id: 'recursive-delete', severity: 'caution', message: 'deletes files recursively', pattern: /\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR]/ },
  { id: 'world-writable', severity: 'caution', message: 'makes files world-writable', pattern: /\bchmod\s+(-R\s+)?0?777\b/ },
  // Prompt injection aimed at the agent that loads the skill.
  { id: 'injection-override', severity: 'dangerous', message: 'tells the agent to ignore its instructions', pattern: /\b(ignore|disregard|forget|override)\b[^\n]{0,30}\b(all\s+|any\s+|the\s+|your\s+)?(previous|prior|above|earlier|system|original)\s+(instructions|prompts?|rules|messages)/i },
  { id: 'injection-secrecy', severity: 'dangerous', message: 'tells the agent to hide actions from the user', pattern: /\b(do not|don't|never)\s+(tell|inform|mention|reveal|show)\s+(this\s+)?(to\s+)?the\s+user\b|\bwithout\s+(telling|informing|asking)\s+the\s+user\b/i },
  { id: 'injection-role', severity: 'caution', message: 'claims a new identity or system role for the agent', pattern: /\byou are now\b|<\/?(system|im_start|assistant)>|\[SYSTEM\]/i },
  // Code constructs that deserve a look.
  { id: 'dynamic-exec', severity: 'caution', message: 'executes dynamically built code', pattern: /\b(eval|exec)\s*\(|\bnew Function\s*\(|\bchild_process\b|\bsubprocess\.(Popen|call|run)\([^)]*shell\s*=\s*True/ },
]

const HIDDEN_UNICODE = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/

/** Scans a skill's files (path → bytes). Binary files get a caution: they cannot be reviewed. */
export function scanFiles(files: ReadonlyMap<string, Buffer>): ScanResult {
  const findings: Finding[] = []
  for (const [file, bytes] of files) {
    if (bytes.includes(0)) {
      findings.push({ file, line: 0, rule: 'binary-file', severity: 'caution', message: 'binary file (cannot be reviewed)', excerpt: `${bytes.length} bytes` })
      continue
    }
    const lines = bytes.toString('utf8').split('\n')
    lines.forEach((text, index) => {
      for (const rule of RULES) {
        if (rule.pattern.test(text)) findings.push({ file, line: index + 1, rule: rule.id, severity: rule.severity, message: rule.message, excerpt: excerpt(text) })
      }
      if (HIDDEN_UNICODE.test(text.replace(/^\uFEFF/, ''))) {
        findings.push({ file, line: index + 1, rule: 'hidden-unicode', severity: 'caution', message: 'invisible or direction-changing characters', excerpt: excerpt(text) })
      }
    })
  }
  const verdict: Verdict = findings.some((f) => f.severity === 'dangerous') ? 'dangerous' : findings.length > 0 ? 'caution' : 'safe'
  return { verdict, findings }
}

function excerpt(line: string): string {
  const clean = line.trim().replace(/[\u0000-\u001F\u007F\u200B-\u200F\u202A-\u202E\u2066-\u2069]/g, '�')
  return clean.length > 120 ? clean.slice(0, 117) + '...' : clean
}
