// The skills hub: `agent skills …` to search, inspect, install, check, update, list and remove skills
// from configured hubs (skills.hub.hubs) and from sites' /.well-known/skills/ indexes, with a
// content scan and a trust policy before anything is installed.

import { commandJudge, defineExtension, SKILLS_SERVICE, UsageError, websitePolicy, type SkillsService } from 'agent/sdk'
import { skillsSubcommands } from './cli.ts'
import type { HubContext } from './operations.ts'
import type { HubConfig } from './sources.ts'

interface HubExtensionConfig {
  hubs: HubConfig[]
  timeout_seconds: number
}

export default defineExtension<HubExtensionConfig>({
  name: 'skills-hub',
  version: '1.0.0',
  description: 'Install skills from hubs and well-known endpoints, behind a content scan and a trust policy',
  dependsOn: ['skills'],
  configKey: 'skills.hub',
  config: {
    type: 'object',
    properties: {
      hubs: {
        type: 'array',
        default: [],
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' },
            url: { type: 'string', pattern: '^https?://' },
            trust: { enum: ['trusted', 'community'], default: 'community' },
          },
          required: ['name', 'url'],
          additionalProperties: false,
        },
      },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: 30 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const names = api.config.hubs.map((h) => h.name)
    const duplicate = names.find((n, i) => names.indexOf(n) !== i)
    if (duplicate) throw new UsageError(`skills.hub.hubs: the hub name "${duplicate}" is used twice`)

    /** The website policy on every hub request and redirect hop (read per use: config edits apply at once). */
    const blockedBy = (url: URL) => {
      const verdict = websitePolicy(api.settings).check(url.href)
      return verdict.blocked ? (verdict.message ?? 'Blocked by website policy') : undefined
    }
    // Shell lines in skill files are judged by the same library as the approvals guard (sdk/shell-judge),
    // loaded or not: a parser that cannot load fails the scan, and so the install.
    const judge = async () => {
      const judgeLine = await commandJudge()
      return (command: string) => judgeLine(command, { agentHome: api.settings.home })
    }
    const context = (): HubContext => ({
      hubs: api.config.hubs.map((h) => ({ ...h, trust: h.trust ?? 'community' })),
      limits: { timeoutMs: api.config.timeout_seconds * 1000, maxBytes: 1024 * 1024, signal: api.signal, allow: blockedBy },
      skills: api.services.require<SkillsService>(SKILLS_SERVICE),
      log: api.log,
      judge,
    })

    api.commands.register({
      name: 'skills',
      category: 'Skills',
      description: 'Search, install, inspect, check, update, list and remove skills',
      cli: { subcommands: skillsSubcommands(context) },
    })
  },
})
