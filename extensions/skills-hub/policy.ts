// The install policy: what a scan verdict means for a skill of a given trust level, and what
// `--force` may override. A dangerous verdict from a hub or a site is never overridable.
//
//              safe    caution            dangerous
//   builtin    allow   allow              allow
//   trusted    allow   allow              block (final)
//   community  allow   block (--force)    block (final)

import type { Verdict } from './scan.ts'

export type Trust = 'builtin' | 'trusted' | 'community'
export const TRUST_LEVELS: readonly Trust[] = ['builtin', 'trusted', 'community']

export type Decision =
  | { action: 'allow'; forced: boolean; reason: string }
  | { action: 'block'; overridable: boolean; reason: string }

const TABLE: Record<Trust, Record<Verdict, 'allow' | 'force' | 'final'>> = {
  builtin: { safe: 'allow', caution: 'allow', dangerous: 'allow' },
  trusted: { safe: 'allow', caution: 'allow', dangerous: 'final' },
  community: { safe: 'allow', caution: 'force', dangerous: 'final' },
}

export function decide(trust: Trust, verdict: Verdict, force: boolean): Decision {
  const rule = TABLE[trust][verdict]
  if (rule === 'allow') return { action: 'allow', forced: false, reason: `${trust} source, scan ${verdict}` }
  if (rule === 'force') {
    if (force) return { action: 'allow', forced: true, reason: `${trust} source, scan ${verdict}, installed with --force` }
    return { action: 'block', overridable: true, reason: `blocked by the trust policy: a ${trust} skill with a "${verdict}" scan verdict (review the findings; --force installs it anyway)` }
  }
  return {
    action: 'block',
    overridable: false,
    reason: `blocked by the trust policy: a ${trust} skill with a "${verdict}" scan verdict is never installed${force ? ' (--force cannot override this)' : ''}`,
  }
}
