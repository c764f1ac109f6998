// The skills catalog in a run's prompt is reused between runs for CATALOG_REUSE_MS, per skills
// service: a skill installed now shows from the runs that start that much later, and a reloaded
// skills extension (a new service object) is asked at once.

import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { CATALOG_REUSE_MS, catalogText, type SkillsLoader } from '../../../extensions/runtime/skills-prompt.ts'

function fakeSkills(list: string[]) {
  let asked = 0
  const skills: SkillsLoader = {
    load: () => ({ prompt: '' }),
    catalog: () => (asked++, list.map((name) => `- ${name}`).join('\n')),
  }
  return { skills, list, asked: () => asked }
}

test('runs right after each other share one look at the skill folders', () => {
  const f = fakeSkills(['release'])
  assert.equal(catalogText(f.skills), '- release')
  assert.equal(catalogText(f.skills), '- release')
  assert.equal(f.asked(), 1)
})

test('a skill installed now is in the catalog once the reuse window has passed', async () => {
  const f = fakeSkills(['release'])
  assert.equal(catalogText(f.skills), '- release')
  f.list.push('deploy')
  await sleep(CATALOG_REUSE_MS + 20)
  assert.equal(catalogText(f.skills), '- release\n- deploy')
  assert.equal(f.asked(), 2)
})

test('another skills service (a reload) is asked at once', () => {
  const a = fakeSkills(['one'])
  const b = fakeSkills(['two'])
  assert.equal(catalogText(a.skills), '- one')
  assert.equal(catalogText(b.skills), '- two')
})
