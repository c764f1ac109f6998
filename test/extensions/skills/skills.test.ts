// The skills extension in a real kernel: SKILL.md parsing, directories and precedence, the prompt
// text for RunRequest.skills, and the skills_list / skill_view tools (confined to the skill folder).

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { AgentError, SKILLS_SERVICE, type SkillsService, type ToolDefinition } from 'agent/sdk'
import { createTestKernel, makeTempHome, type TestKernel } from 'agent/sdk/testing'

function writeSkill(root: string, folder: string, text: string, files: Record<string, string> = {}): string {
  const dir = join(root, folder)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'SKILL.md'), text)
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), body)
  }
  return dir
}

describe('skills extension', () => {
  let t: TestKernel
  let external: string
  let skills: SkillsService
  const tool = (name: string) => t.kernel.registries.tools.get(name) as ToolDefinition
  const call = (name: string, input: unknown) => tool(name).execute({ input, callId: 'c1', signal: new AbortController().signal, session: { id: 's', cwd: t.home } })

  before(async () => {
    external = makeTempHome('skills-ext-')
    const home = makeTempHome()
    const user = join(home, 'skills')
    writeSkill(user, 'git-flow', '---\nname: git-flow\ndescription: Branching workflow for releases\ntags: [git, release]\n---\n# Git flow\nCreate a release branch.\n', {
      'references/commands.md': 'git checkout -b release/x',
      'scripts/tag.sh': '#!/bin/sh\ngit tag "$1"\n',
    })
    // A category folder one level down, and a broken skill reported as a problem.
    writeSkill(join(user, 'writing'), 'changelog', '---\nname: changelog\ndescription: Write a changelog entry\nmetadata:\n  agent:\n    tags: [docs]\n---\nUse Keep a Changelog.\n')
    writeSkill(user, 'broken', '# no front matter\n')
    writeSkill(user, 'bad-name', '---\nname: Bad Name\ndescription: x\n---\nbody\n')
    // A user skill named like an external one wins.
    writeSkill(external, 'changelog', '---\nname: changelog\ndescription: external copy\n---\nexternal\n')
    writeSkill(external, 'lint', '---\nname: lint\ndescription: Run the linters\n---\nRun npm run lint.\n')
    writeFileSync(join(home, 'secret.txt'), 'top secret')
    symlinkSync(join(home, 'secret.txt'), join(user, 'git-flow', 'references', 'leak.md'))
    t = await createTestKernel({ home, builtins: ['skills'], config: { skills: { external_dirs: [external] } } })
    skills = t.kernel.services.require<SkillsService>(SKILLS_SERVICE)
  })
  after(async () => {
    await t.close()
    // A home handed to createTestKernel is the caller's to remove.
    for (const dir of [t.home, external]) rmSync(dir, { recursive: true, force: true })
  })

  it('finds user, external and bundled skills, first directory wins, problems reported', () => {
    const byName = new Map(skills.list().map((s) => [s.name, s]))
    assert.deepEqual([...byName.keys()].sort(), ['changelog', 'git-flow', 'lint', 'plan'])
    assert.equal(byName.get('changelog')!.source, 'user')
    assert.deepEqual(byName.get('changelog')!.tags, ['docs'])
    assert.equal(byName.get('lint')!.source, 'external')
    assert.equal(byName.get('plan')!.source, 'bundled')
    assert.deepEqual(byName.get('git-flow')!.tags, ['git', 'release'])
    const problems = skills.problems().map((p) => p.reason)
    assert.ok(problems.some((r) => /must start with YAML front matter/.test(r)), problems.join('\n'))
    assert.ok(problems.some((r) => /"name" "Bad Name" must match/.test(r)), problems.join('\n'))
    assert.deepEqual(skills.get('git-flow')!.files, ['references/commands.md', 'scripts/tag.sh'])
  })

  it('builds the prompt of several skills in the order asked, and names unknown ones', () => {
    const loaded = skills.load(['git-flow', 'lint', 'git-flow'])
    assert.deepEqual(loaded.skills.map((s) => s.name), ['git-flow', 'lint'])
    assert.match(loaded.prompt, /^The following skills are loaded/)
    assert.ok(loaded.prompt.indexOf('<skill name="git-flow">') < loaded.prompt.indexOf('<skill name="lint">'))
    assert.match(loaded.prompt, /Create a release branch\./)
    assert.match(loaded.prompt, /Supporting files .*references\/commands\.md/)
    assert.equal(skills.load([]).prompt, '')
    assert.deepEqual(skills.missing(['lint', 'nope', 'nada']), ['nope', 'nada'])
    assert.throws(() => skills.load(['lint', 'nope']), (e: unknown) => AgentError.isInstance(e) && e.exitCode === 2 && /unknown skill: nope \(available: changelog, git-flow, lint, plan\)/.test(e.message))
    assert.match(skills.catalog(), /- lint: Run the linters/)
  })

  it('skills_list filters; skill_view reads instructions and supporting files only inside the folder', async () => {
    const listed = (await call('skills_list', { query: 'release' })) as any
    assert.deepEqual(listed.skills.map((s: any) => s.name), ['git-flow'])
    const view = (await call('skill_view', { name: 'git-flow' })) as any
    assert.match(view.instructions, /Create a release branch/)
    assert.deepEqual(view.files, ['references/commands.md', 'scripts/tag.sh'])
    const file = (await call('skill_view', { name: 'git-flow', file: 'scripts/tag.sh' })) as any
    assert.equal(file.content, '#!/bin/sh\ngit tag "$1"\n')
    await assert.rejects(async () => call('skill_view', { name: 'git-flow', file: '../../secret.txt' }), /must be a path inside/)
    await assert.rejects(async () => call('skill_view', { name: 'git-flow', file: 'references/leak.md' }), /leads outside the skill's folder/)
    await assert.rejects(async () => call('skill_view', { name: 'git-flow', file: '/etc/passwd' }), /must be a path inside/)
    await assert.rejects(async () => call('skill_view', { name: 'nope' }), /no skill named "nope"/)
  })

  it('sees a skill written after start (directories are read at call time)', () => {
    writeSkill(join(t.home, 'skills'), 'late', '---\nname: late\ndescription: Arrived later\n---\nhello\n')
    assert.equal(skills.get('late')?.description, 'Arrived later')
    // An edit is seen too (parses are cached by mtime and size).
    writeSkill(join(t.home, 'skills'), 'late', '---\nname: late\ndescription: Edited since\n---\nhello again\n')
    assert.equal(skills.get('late')?.description, 'Edited since')
    assert.match(skills.load(['late']).prompt, /hello again/)
  })

  it('parse() checks SKILL.md text without touching the disk', () => {
    assert.equal(skills.parse('---\nname: x1\ndescription: d\nversion: 2\n---\nbody').version, '2')
    assert.throws(() => skills.parse('---\nname: x1\n---\nbody'), /"description" is missing/)
    assert.throws(() => skills.parse(`---\nname: ${'a'.repeat(65)}\ndescription: d\n---\n`), /longer than 64/)
    assert.throws(() => skills.parse('---\nname: [a\n---\n'), /not valid YAML/)
  })

  it('registers /plan as a slash command on both surfaces', () => {
    const plan = t.kernel.registries.commands.get('plan')
    assert.equal(plan?.scope, 'both')
    assert.equal(typeof plan?.slash, 'function')
  })
})

describe('skills catalog reuse', () => {
  it('a scan is reused only while nothing it saw changed: edits, removals, new skills and hub installs show at once', async () => {
    const home = makeTempHome()
    const user = join(home, 'skills')
    writeSkill(user, 'alpha', '---\nname: alpha\ndescription: first version\n---\nA.\n')
    writeSkill(join(user, 'tools'), 'beta', '---\nname: beta\ndescription: Beta\n---\nB.\n')
    const t = await createTestKernel({ home, builtins: ['skills'] })
    after(async () => {
      await t.close()
      rmSync(home, { recursive: true, force: true })
    })
    const skills = t.kernel.services.require<SkillsService>(SKILLS_SERVICE)
    // Age every folder and file so the scan is trusted (nothing changed within the racy window).
    const past = new Date(Date.now() - 60_000)
    const age = (...paths: string[]) => {
      for (const p of paths) utimesSync(p, past, past)
    }
    const everything = () => [user, join(user, 'alpha'), join(user, 'alpha', 'SKILL.md'), join(user, 'tools'), join(user, 'tools', 'beta'), join(user, 'tools', 'beta', 'SKILL.md')].filter((p) => existsSync(p))
    const names = () => skills.list().filter((s) => s.source !== 'bundled').map((s) => `${s.name}:${s.description}:${s.source}`).sort()
    age(...everything())
    assert.deepEqual(names(), ['alpha:first version:user', 'beta:Beta:user'])
    // Proof of reuse: a rewrite that stat cannot see (same size, mtime put back) is not read again.
    writeFileSync(join(user, 'alpha', 'SKILL.md'), '---\nname: alpha\ndescription: FIRST VERSION\n---\nA.\n')
    age(join(user, 'alpha', 'SKILL.md'))
    assert.deepEqual(names(), ['alpha:first version:user', 'beta:Beta:user'], 'the scan was reused')

    writeFileSync(join(user, 'alpha', 'SKILL.md'), '---\nname: alpha\ndescription: second version\n---\nA2.\n')
    assert.deepEqual(names(), ['alpha:second version:user', 'beta:Beta:user'], 'an edited SKILL.md shows at once')

    age(...everything())
    names()
    writeSkill(join(user, 'tools'), 'gamma', '---\nname: gamma\ndescription: Gamma\n---\nG.\n')
    assert.deepEqual(names(), ['alpha:second version:user', 'beta:Beta:user', 'gamma:Gamma:user'], 'a new skill in a category folder shows at once')

    age(...everything(), join(user, 'tools', 'gamma'), join(user, 'tools', 'gamma', 'SKILL.md'))
    names()
    rmSync(join(user, 'tools', 'beta'), { recursive: true })
    assert.deepEqual(names(), ['alpha:second version:user', 'gamma:Gamma:user'], 'a removed skill goes at once')

    age(...everything(), join(user, 'tools', 'gamma'), join(user, 'tools', 'gamma', 'SKILL.md'))
    names()
    mkdirSync(join(user, '.hub'), { recursive: true })
    writeFileSync(join(user, '.hub', 'lock.json'), JSON.stringify({ skills: { gamma: { source: 'hub' } } }))
    assert.deepEqual(names(), ['alpha:second version:user', 'gamma:Gamma:hub'], 'a hub install is seen at once')
  })
})
