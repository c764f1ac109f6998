// The content scan run on every file of a skill before it is installed: exfiltration of secrets,
// remote code execution, persistence, destruction and prompt injection, matched on Unicode-normalised
// text (sdk/text-normalise.ts). The verdict is the worst finding: `safe` (none), `caution` (risky but
// common), `dangerous` (no legitimate skill needs it).

import { findInjections, hasHiddenCharacters, normaliseForMatching, normaliseText, tagText, type CommandAssessment } from 'agent/sdk'
import { destruction, exfiltration, shellSurface, withoutKeyUse, type LineFinding } from './scan-shell.ts'

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

export interface ScanOptions {
  /** The shell-command judge (sdk/shell-judge), run on each line of shell code blocks and scripts. */
  assess?: (command: string) => CommandAssessment
}

interface Rule extends LineFinding {
  pattern: RegExp
  /** What the pattern is matched on, when not the whole shell surface. */
  on?: (surface: string) => string
}

/** Line patterns beyond destruction and secret flow (scan-shell.ts), matched on the shell surface. */
const RULES: readonly Rule[] = [
  { rule: 'exfil-private-files', severity: 'dangerous', message: 'reads private keys or credential files', pattern: /(~|\$HOME|\/root|\/home\/[^/\s]+)\/\.(ssh\/(id_[a-z0-9]+(?!\.pub)\b|authorized_keys)|aws\/credentials|netrc|gnupg|docker\/config\.json|kube\/config|git-credentials)|\/etc\/shadow|\/proc\/[^/\s]+\/environ\b/i, on: withoutKeyUse },
  { rule: 'exfil-agent-secrets', severity: 'dangerous', message: "reads the agent's own secrets (.env, auth files)", pattern: /(~|\$HOME)\/\.agent\/(\.env|auth)|\$AGENT_HOME\/(\.env|auth)/i },
  { rule: 'exfil-upload-file', severity: 'dangerous', message: 'uploads local files from home or the root with curl', pattern: /\bcurl\b[^\n]*(-F\s*\S*=@|--data-binary\s+@|--data\s+@|-d\s+@|-T\s+|--upload-file\s+)(~|\/|\$HOME)/i },
  { rule: 'reverse-shell', severity: 'dangerous', message: 'opens a reverse shell', pattern: /\/dev\/tcp\/|\b(nc|ncat|netcat)\b[^\n]*\s-(e|c)\s|\bsocat\b[^\n]*exec:|\bbash\s+-i\s*>&/i },
  { rule: 'obfuscated-exec', severity: 'dangerous', message: 'runs decoded (obfuscated) code', pattern: /base64\s+(-d|--decode|-D)[^\n]*\|\s*(sudo\s+)?(\S*\/)?(ba|z|da|k)?sh\b|\beval\s*\(\s*(atob|Buffer\.from)\(|exec\(\s*(base64\.b64decode|codecs\.decode)/i },
  { rule: 'remote-script', severity: 'caution', message: 'pipes a downloaded script into a shell', pattern: /\b(curl|wget)\b[^\n|]*\|\s*(sudo\s+)?(\S*\/)?(ba|z|da)?sh\b|\b(iex|Invoke-Expression)\b[^\n]*(DownloadString|iwr|Invoke-WebRequest)/i },
  { rule: 'eval-remote', severity: 'dangerous', message: 'evaluates code fetched from the network', pattern: /\beval\s+["'`]?\$\((curl|wget)\b|\b(source|\.)\s+<\(\s*(curl|wget)\b/i },
  { rule: 'persistence-shell-rc', severity: 'dangerous', message: 'modifies shell start-up files', pattern: />>?\s*(~|\$HOME)\/\.(bashrc|zshrc|profile|bash_profile|zprofile|zshenv)\b/i },
  { rule: 'persistence-scheduler', severity: 'dangerous', message: 'installs a scheduled or start-up job', pattern: /\bcrontab\s+(-[a-z]*\s+)*-?\s*$|\|\s*crontab\b|\bsystemctl\s+(--user\s+)?enable\b|\blaunchctl\s+load\b/im },
  { rule: 'sudo', severity: 'caution', message: 'runs commands as root', pattern: /(^|[\s;&|(`])sudo\s+\S/m },
  { rule: 'world-writable', severity: 'caution', message: 'makes files world-writable', pattern: /\bchmod\s+(-R\s+)?0?777\b/ },
  { rule: 'hidden-html', severity: 'caution', message: 'text styled to be invisible to a reader', pattern: /style\s*=\s*["'][^"']*(display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|color\s*:\s*(white|#fff\b|#ffffff\b|transparent))/i },
  { rule: 'dynamic-exec', severity: 'caution', message: 'executes dynamically built code', pattern: /\b(eval|exec)\s*\(|\bnew Function\s*\(|\bchild_process\b|\bsubprocess\.(Popen|call|run)\([^)]*shell\s*=\s*True/ },
]

const CONTINUED = /\\\s*$/
/**
 * Longer lines are matched in overlapping pieces: some patterns cost time quadratic in the line
 * length, and a hub must not stall an install with one 1 MiB line of `curl curl curl …`.
 */
const WINDOW = 4096
const OVERLAP = 1024

function windows(line: string): string[] {
  if (line.length <= WINDOW) return [line]
  const pieces: string[] = []
  for (let at = 0; at < line.length; at += WINDOW - OVERLAP) pieces.push(line.slice(at, at + WINDOW))
  return pieces
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([\w-]*)/
const SHELL_LANGUAGE = /^(?:sh|bash|shell|zsh|console|shell-session|terminal)$/i

/** Scans a skill's files (path → bytes). Binary files get a caution: they cannot be reviewed. */
export function scanFiles(files: ReadonlyMap<string, Buffer>, options: ScanOptions = {}): ScanResult {
  const findings: Finding[] = []
  for (const [file, bytes] of files) {
    if (bytes.includes(0)) {
      findings.push({ file, line: 0, rule: 'binary-file', severity: 'caution', message: 'binary file (cannot be reviewed)', excerpt: `${bytes.length} bytes` })
      continue
    }
    findings.push(...scanText(file, bytes.toString('utf8'), options))
  }
  // One finding per file, line and rule (a line is read in several forms).
  const seen = new Set<string>()
  const unique = findings.filter((f) => !seen.has(`${f.file}:${f.line}:${f.rule}`) && seen.add(`${f.file}:${f.line}:${f.rule}`))
  const verdict: Verdict = unique.some((f) => f.severity === 'dangerous') ? 'dangerous' : unique.length > 0 ? 'caution' : 'safe'
  return { verdict, findings: unique }
}

function scanText(file: string, raw: string, options: ScanOptions): Finding[] {
  const findings: Finding[] = []
  const rawLines = raw.split('\n')
  const add = (index: number, f: LineFinding) => findings.push({ file, line: index + 1, rule: f.rule, severity: f.severity, message: f.message, excerpt: excerpt(rawLines[index] ?? '') })
  const lines = rawLines.map((line) => normaliseText(line))
  rawLines.forEach((line, index) => {
    if (tagText(line)) add(index, { rule: 'hidden-text', severity: 'dangerous', message: 'text hidden in invisible tag characters' })
    else if (hasHiddenCharacters(line)) add(index, { rule: 'hidden-unicode', severity: 'caution', message: 'invisible or direction-changing characters' })
  })

  // Commands: one logical line (backslash continuations joined) at a time.
  const tainted = new Set<string>()
  const scriptFile = /\.(sh|bash|zsh)$/i.test(file)
  let fence: string | undefined
  let shellFence = false
  for (let i = 0; i < lines.length; i++) {
    const start = i
    // Physical lines are tested one by one: re-testing the growing logical line would be quadratic.
    const parts = [lines[i]!]
    while (CONTINUED.test(lines[i]!) && i + 1 < lines.length) {
      parts[parts.length - 1] = parts.at(-1)!.replace(CONTINUED, ' ')
      parts.push(lines[++i]!)
    }
    const logical = parts.join('')
    const opening = FENCE.exec(logical)
    if (opening && (!fence || logical.trim().startsWith(fence))) {
      if (fence) fence = undefined
      else [fence, shellFence] = [opening[1]!, SHELL_LANGUAGE.test(opening[2]!)]
      continue
    }
    if (logical.length > WINDOW) add(start, { rule: 'long-line', severity: 'caution', message: `a line longer than ${WINDOW} characters (read in overlapping pieces)` })
    for (const piece of windows(logical)) {
      const surface = shellSurface(piece)
      for (const rule of RULES) if (rule.pattern.test(rule.on ? rule.on(surface) : surface)) add(start, rule)
      for (const f of [...destruction(surface), ...exfiltration(surface, tainted)]) add(start, f)
    }
    if (options.assess && (scriptFile || (fence && shellFence)) && logical.trim()) {
      const command = logical.replace(/^\s*[$#>]\s+/, '')
      for (const f of judged(options.assess, command)) add(start, f)
    }
  }

  // Prompt injection: per paragraph, so a phrase split over lines is read whole; spaced-out letters joined.
  let paragraph: number[] = []
  const flush = () => {
    if (!paragraph.length) return
    const text = paragraph.map((i) => lines[i]).join(' ')
    const hidden = paragraph.map((i) => tagText(rawLines[i]!)).join(' ')
    for (const form of [text, normaliseForMatching(text), normaliseForMatching(hidden)]) {
      for (const p of findInjections(form)) add(paragraph[0]!, { rule: p.id, severity: p.severity, message: p.message })
    }
    paragraph = []
  }
  lines.forEach((line, index) => (line.trim() ? paragraph.push(index) : flush()))
  flush()
  return findings
}

/** The shell judge's verdict on one shell line: never-allowed is dangerous, dangerous is a caution. */
function judged(assess: NonNullable<ScanOptions['assess']>, command: string): LineFinding[] {
  let assessment: CommandAssessment
  try {
    assessment = assess(command)
  } catch {
    return [{ rule: 'shell-unjudged', severity: 'caution', message: 'a shell line the command judge could not read' }]
  }
  return [
    ...assessment.neverAllowed.map((f) => ({ rule: `shell-never-allowed:${f.key}`, severity: 'dangerous' as const, message: `never allowed to run: ${f.description}` })),
    ...assessment.dangerous.map((f) => ({ rule: `shell-dangerous:${f.key}`, severity: 'caution' as const, message: `needs approval to run: ${f.description}` })),
  ]
}

function excerpt(line: string): string {
  const clean = line.trim().replace(/[\u0000-\u001F\u007F\u200B-\u200F\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/gu, '�')
  return clean.length > 120 ? clean.slice(0, 117) + '...' : clean
}
