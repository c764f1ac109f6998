// The model's tools over skills: `skills_list` (what exists) and `skill_view` (a skill's
// instructions, or one of its supporting files, confined to the skill's folder).

import { readFileSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, resolve, sep } from 'node:path'
import { AgentError, defineTool, type SkillsService, type ToolDefinition } from 'agent/sdk'
import { LIMITS } from './skill-file.ts'

export function skillTools(service: () => SkillsService): ToolDefinition[] {
  const skillsList = defineTool<{ query?: string }>({
    name: 'skills_list',
    toolset: 'skills',
    description: 'List the skills available to load (name, description, tags). Optionally filter by a word in the name, description or tags.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Only skills whose name, description or tags contain this text' } },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        count: { type: 'integer' },
        skills: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, description: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, source: { type: 'string' }, version: { type: 'string' } },
            required: ['name', 'description', 'tags', 'source'],
          },
        },
      },
      required: ['count', 'skills'],
    },
    execute({ input }) {
      const query = (input?.query ?? '').trim().toLowerCase()
      const skills = service()
        .list()
        .filter((s) => !query || [s.name, s.description, ...s.tags].some((t) => t.toLowerCase().includes(query)))
        .map(({ name, description, tags, source, version }) => ({ name, description, tags, source, ...(version ? { version } : {}) }))
      return { count: skills.length, skills }
    },
  })

  const skillView = defineTool<{ name: string; file?: string }>({
    name: 'skill_view',
    toolset: 'skills',
    description:
      "Read a skill: without `file`, its full instructions and the list of its supporting files; with `file` (a path relative to the skill's folder, as listed), that file's text.",
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Skill name, as listed by skills_list' },
        file: { type: 'string', description: 'Optional supporting file, e.g. references/api.md' },
      },
      required: ['name'],
      additionalProperties: false,
    },
    execute({ input }) {
      const name = String(input?.name ?? '').trim()
      const skill = service().get(name)
      if (!skill) throw new AgentError('E_NOT_FOUND', `no skill named "${name}" (see skills_list)`)
      if (!input.file) {
        return { name: skill.name, description: skill.description, version: skill.version, tags: skill.tags, files: skill.files, instructions: skill.instructions }
      }
      return { name: skill.name, file: input.file, content: readInside(skill.dir, input.file) }
    },
  })
  return [skillsList, skillView]
}

/** Reads a file inside `dir`; refuses paths (or symlinks) that lead outside it, and large or binary files. */
export function readInside(dir: string, file: string): string {
  if (isAbsolute(file) || file.split(/[\\/]/).includes('..')) throw new AgentError('E_BLOCKED', `"${file}" must be a path inside the skill's folder`)
  const root = realpathSync(dir)
  let target: string
  try {
    target = realpathSync(resolve(root, file))
  } catch {
    throw new AgentError('E_NOT_FOUND', `the skill has no file "${file}"`)
  }
  if (!target.startsWith(root + sep)) throw new AgentError('E_BLOCKED', `"${file}" leads outside the skill's folder`)
  const stat = statSync(target)
  if (!stat.isFile()) throw new AgentError('E_NOT_FOUND', `"${file}" is not a file`)
  if (stat.size > LIMITS.fileBytes) throw new AgentError('E_BLOCKED', `"${file}" is larger than ${LIMITS.fileBytes} bytes`)
  const bytes = readFileSync(target)
  if (bytes.includes(0)) throw new AgentError('E_BLOCKED', `"${file}" is a binary file`)
  return bytes.toString('utf8')
}
