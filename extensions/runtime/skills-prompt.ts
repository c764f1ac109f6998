// The skills part of a run's system prompt: the skills the run asked for, in full, and the catalog
// of the others when the model can load them (skill_view offered).

import { UsageError, type ExtensionApi } from 'agent/sdk'

/** The part of the skills service (sdk/skills.ts, extension `skills`) a run needs. */
export interface SkillsLoader {
  load(names: readonly string[]): { prompt: string }
  catalog(): string
}

/**
 * How long a catalog is reused between runs. The skills service looks at every skill folder (a stat
 * each) so that a skill installed by another process is seen; doing that on every run was about 4 %
 * of an API request's CPU. A skill installed now is offered from the runs that start this much later.
 */
export const CATALOG_REUSE_MS = 100

const catalogs = new WeakMap<SkillsLoader, { at: number; text: string }>()

/** The catalog text, reused for CATALOG_REUSE_MS per skills service (a reload brings a new one). */
export function catalogText(skills: SkillsLoader): string {
  const now = Date.now()
  const last = catalogs.get(skills)
  if (last && now - last.at < CATALOG_REUSE_MS) return last.text
  const text = skills.catalog().trim()
  catalogs.set(skills, { at: now, text })
  return text
}

export function skillsPrompt(api: ExtensionApi<any>, names: readonly string[] | undefined, catalogWanted: boolean): string | undefined {
  const skills = api.services.get<SkillsLoader>('skills')
  if (names?.length) {
    if (!skills) throw new UsageError(`skills were requested (${names.join(', ')}) but the skills extension is not loaded`)
  }
  const parts: string[] = []
  if (skills && names?.length) parts.push(skills.load(names).prompt)
  if (skills && catalogWanted) {
    const catalog = catalogText(skills)
    if (catalog) parts.push(`# Available skills (load one with skill_view)\n${catalog}`)
  }
  return parts.length ? parts.join('\n\n') : undefined
}
