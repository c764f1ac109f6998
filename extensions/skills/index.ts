// Skills: SKILL.md folders in <agent_home>/skills, skills.external_dirs and the bundled ones; the
// `skills` service (prompt text for RunRequest.skills), the skills_list/skill_view tools and /plan.

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineExtension, SKILLS_SERVICE, type SkillsService } from 'agent/sdk'
import { createSkillsService, type SkillRoot } from './catalog.ts'
import { planCommand } from './plan.ts'
import { skillTools } from './tools.ts'

interface SkillsConfig {
  external_dirs: string[]
  hub?: Record<string, unknown>
}

export default defineExtension<SkillsConfig>({
  name: 'skills',
  version: '1.0.0',
  description: 'SKILL.md skills: loading into runs, skills_list/skill_view tools, /plan',
  configKey: 'skills',
  config: {
    type: 'object',
    properties: {
      external_dirs: { type: 'array', items: { type: 'string' }, default: [] },
      // Read by the skills-hub extension (configKey skills.hub).
      hub: { type: 'object' },
    },
    additionalProperties: false,
  },
  setup(api) {
    const userDir = join(api.settings.home, 'skills')
    const bundledDir = fileURLToPath(new URL('./bundled', import.meta.url))
    const roots = (): SkillRoot[] => [
      { dir: userDir, source: 'user' },
      ...api.config.external_dirs.map((dir) => ({ dir: resolve(api.settings.home, dir.replace(/^~(?=$|\/)/, homedir())), source: 'external' as const })),
      { dir: bundledDir, source: 'bundled' },
    ]
    const service = createSkillsService(roots, userDir)
    api.services.provide<SkillsService>(SKILLS_SERVICE, service)
    for (const tool of skillTools(() => service)) api.tools.register(tool)
    api.commands.register(planCommand(api))
  },
})
