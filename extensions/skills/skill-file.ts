// The SKILL.md format: YAML front matter (name, description, version, tags …) between `---` lines,
// then the markdown instructions. Parsing never runs anything; problems become one line.

import YAML from 'yaml'

export const SKILL_FILE = 'SKILL.md'
export const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/
export const LIMITS = Object.freeze({ name: 64, description: 1024, content: 100_000, fileBytes: 1024 * 1024 })

export interface ParsedSkill {
  name: string
  description: string
  version?: string
  tags: string[]
  instructions: string
  frontMatter: Record<string, unknown>
}

/** A one-line reason why a SKILL.md is not usable. */
export class SkillFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SkillFormatError'
  }
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean)
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()) : []
}

/** Tags from `tags`, or `metadata.tags`, or `metadata.<agent>.tags` (the shapes published skills use). */
function tagsOf(front: Record<string, unknown>): string[] {
  const direct = stringList(front.tags)
  if (direct.length) return direct
  const metadata = front.metadata
  if (!metadata || typeof metadata !== 'object') return []
  const meta = metadata as Record<string, unknown>
  const nested = stringList(meta.tags)
  if (nested.length) return nested
  for (const value of Object.values(meta)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const inner = stringList((value as Record<string, unknown>).tags)
      if (inner.length) return inner
    }
  }
  return []
}

/** Checks a skill name against the format; returns the problem or undefined. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return '"name" is missing'
  if (name.length > LIMITS.name) return `"name" is longer than ${LIMITS.name} characters`
  if (!NAME_PATTERN.test(name)) return `"name" "${name}" must match ${NAME_PATTERN.source} (lowercase letters, digits, . _ -)`
  return undefined
}

/** Parses SKILL.md text; throws SkillFormatError with one line. */
export function parseSkill(text: string): ParsedSkill {
  if (text.length > LIMITS.content) throw new SkillFormatError(`SKILL.md is longer than ${LIMITS.content} characters`)
  const source = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n')
  const match = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(source)
  if (!match) throw new SkillFormatError('SKILL.md must start with YAML front matter between "---" lines')
  let front: unknown
  try {
    front = YAML.parse(match[1]!, { prettyErrors: false })
  } catch (error) {
    throw new SkillFormatError(`front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  if (!front || typeof front !== 'object' || Array.isArray(front)) throw new SkillFormatError('front matter must be a mapping of keys')
  const fm = front as Record<string, unknown>
  const problem = nameProblem(fm.name)
  if (problem) throw new SkillFormatError(problem)
  if (typeof fm.description !== 'string' || fm.description.trim() === '') throw new SkillFormatError('"description" is missing')
  if (fm.description.length > LIMITS.description) throw new SkillFormatError(`"description" is longer than ${LIMITS.description} characters`)
  const version = fm.version === undefined || fm.version === null ? undefined : String(fm.version)
  return {
    name: fm.name as string,
    description: fm.description.trim(),
    version,
    tags: tagsOf(fm),
    instructions: source.slice(match[0].length).trim(),
    frontMatter: fm,
  }
}
