// The approvals allowlist: entries with a grant key that was retired when file-write grants became
// per place (`protected-path-write` → `protected-path-write:~/.ssh` …) match nothing, so the writes
// they once allowed are asked again. Reported with what to write instead; never rewritten here,
// since turning one into every per-place key would open every protected place.

import { staleAllowlistEntries, type CliContext } from 'agent/sdk'
import type { Report } from './report.ts'

export function checkAllowlist(report: Report, ctx: Pick<CliContext, 'settings'>): void {
  for (const stale of staleAllowlistEntries(ctx.settings.get<unknown>('approvals.allowlist'))) {
    report.add('Configuration', 'approvals.allowlist', 'warn', stale.problem, `${stale.fix}, in ${ctx.settings.configPath}`)
  }
}
