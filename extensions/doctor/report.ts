// A diagnostic report: lines grouped by section, each with a verdict (ok, warn, fail, info), and
// how it prints (one clear verdict per line) or serialises (--json).

import type { CliContext } from 'agent/sdk'

export type Verdict = 'ok' | 'warn' | 'fail' | 'info'

export interface CheckLine {
  section: string
  subject: string
  verdict: Verdict
  detail: string
  /** What to do about a warn or fail. */
  fix?: string
}

export class Report {
  readonly lines: CheckLine[] = []

  add(section: string, subject: string, verdict: Verdict, detail: string, fix?: string): void {
    this.lines.push({ section, subject, verdict, detail, ...(fix ? { fix } : {}) })
  }

  count(verdict: Verdict): number {
    return this.lines.filter((l) => l.verdict === verdict).length
  }

  print(ctx: CliContext, color: boolean): void {
    const mark: Record<Verdict, string> = color
      ? { ok: '\x1b[32m✓\x1b[0m', warn: '\x1b[33m!\x1b[0m', fail: '\x1b[31m✗\x1b[0m', info: '\x1b[2m·\x1b[0m' }
      : { ok: '✓', warn: '!', fail: '✗', info: '·' }
    const width = Math.min(30, Math.max(...this.lines.map((l) => l.subject.length), 8))
    let section = ''
    for (const line of this.lines) {
      if (line.section !== section) {
        if (section) ctx.out('')
        section = line.section
        ctx.out(color ? `\x1b[1m${section}\x1b[0m` : section)
      }
      ctx.out(`  ${mark[line.verdict]} ${line.subject.padEnd(width)}  ${line.detail}`)
      if (line.fix && line.verdict !== 'ok') ctx.out(`    ${' '.repeat(width)}  → ${line.fix}`)
    }
  }

  summary(): { ok: number; warnings: number; failures: number } {
    return { ok: this.count('ok'), warnings: this.count('warn'), failures: this.count('fail') }
  }
}
