// The skills service (`services.get<SkillsService>('skills')`, extension `skills`): SKILL.md skills
// found in the skills directories, and the prompt text that loads some of them into a run. The
// runtime calls it for RunRequest.skills; cron and webhook routes call `missing` to check names early.

export const SKILLS_SERVICE = 'skills'

/** Where a skill was found: shipped with the agent, written by the user, installed from a hub or a site. */
export type SkillSource = 'bundled' | 'user' | 'hub' | 'external'

export interface SkillSummary {
  /** `^[a-z0-9][a-z0-9._-]*$`, at most 64 characters. */
  name: string
  description: string
  version?: string
  tags: string[]
  source: SkillSource
  /** Folder holding SKILL.md. */
  dir: string
}

export interface Skill extends SkillSummary {
  /** The markdown body of SKILL.md (the instructions), without its front matter. */
  instructions: string
  /** The parsed YAML front matter. */
  frontMatter: Record<string, unknown>
  /** Supporting files relative to `dir` (SKILL.md excluded), `/`-separated. */
  files: string[]
}

export interface LoadedSkills {
  /** Text to layer into a run's system prompt (never stored in the session). */
  prompt: string
  skills: SkillSummary[]
}

/** A skill folder that could not be read (bad front matter, missing name …). */
export interface SkillProblem {
  dir: string
  reason: string
}

export interface SkillsService {
  /** Every usable skill, by name; a user skill shadows a bundled one of the same name. */
  list(): SkillSummary[]
  get(name: string): Skill | undefined
  /** The prompt text loading these skills, in the order given. Throws a UsageError naming unknown ones. */
  load(names: readonly string[]): LoadedSkills
  /** The names among `names` that no skill answers to (empty when all exist). */
  missing(names: readonly string[]): string[]
  /** A short catalog (name: description per line) the runtime may offer so the model can call skill_view. */
  catalog(): string
  /** Parses SKILL.md text (front matter checked, nothing run); throws a one-line error when it is not a valid skill. */
  parse(text: string): Omit<Skill, 'source' | 'dir' | 'files'>
  /** Skill folders that were skipped, and why. */
  problems(): SkillProblem[]
  /** Where installed and user-written skills live: `<agent_home>/skills`. */
  readonly userDir: string
}
