// `agent doctor`: every check in order; exit 1 when anything failed, so scripts can gate on it.

import { UsageError, type CliContext } from 'agent/sdk'
import { checkAllowlist } from './approvals.ts'
import { checkConfig, checkEnvironment, checkExtensions, checkGateway, checkModel, checkState, checkTools } from './checks.ts'
import { checkProviders } from './connectivity.ts'
import { checkStorage } from './database.ts'
import { Report } from './report.ts'
import { checkSandbox } from './sandbox.ts'
import { checkVoice } from './voice.ts'

export function timeoutOf(ctx: CliContext): number {
  const seconds = Number(ctx.argv.timeout ?? 8)
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 300) throw new UsageError(`--timeout must be between 0 and 300 seconds (got ${String(ctx.argv.timeout)})`)
  return Math.round(seconds * 1000)
}

export async function runDoctor(ctx: CliContext): Promise<number> {
  const timeoutMs = timeoutOf(ctx)
  const report = new Report()
  checkEnvironment(report, ctx)
  await checkConfig(report, ctx)
  checkAllowlist(report, ctx)
  checkExtensions(report, ctx)
  const models = checkModel(report, ctx)
  if (models && !ctx.argv.offline) await checkProviders(report, models, ctx.settings, timeoutMs)
  checkTools(report, ctx)
  await checkSandbox(report, ctx)
  await checkVoice(report, ctx)
  checkGateway(report, ctx)
  await checkStorage(report, ctx, timeoutMs)
  checkState(report, ctx)
  const summary = report.summary()
  if (ctx.argv.json) {
    ctx.json({ healthy: summary.failures === 0, ...summary, checks: report.lines })
  } else {
    report.print(ctx, ctx.isTTY && !ctx.settings.env('NO_COLOR'))
    ctx.out('')
    ctx.out(summary.failures ? `✗ ${summary.failures} problem(s), ${summary.warnings} warning(s)` : summary.warnings ? `✓ no problems, ${summary.warnings} warning(s)` : '✓ everything looks good')
  }
  return summary.failures ? 1 : 0
}
