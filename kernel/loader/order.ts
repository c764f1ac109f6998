// Setup order: every extension after the ones it depends on; otherwise discovery order. A cycle is
// reported on the extensions in it and they are not set up.

import type { ExtensionDefinition, ExtensionInfo } from '../../sdk/types.ts'

interface Orderable {
  info: ExtensionInfo
  definition?: ExtensionDefinition<any>
}

export function topoSort<T extends Orderable>(records: readonly T[]): T[] {
  const byName = new Map(records.map((r) => [r.info.name, r]))
  const out: T[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (record: T, path: string[]) => {
    const name = record.info.name
    if (state.get(name) === 'done') return
    if (state.get(name) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(name)), name].join(' → ')
      for (const member of path.slice(path.indexOf(name))) {
        const r = byName.get(member)
        if (r) {
          r.info.state = 'failed'
          r.info.reason = `dependency cycle: ${cycle}`
        }
      }
      return
    }
    state.set(name, 'visiting')
    for (const dep of record.definition?.dependsOn ?? []) {
      const depRecord = byName.get(dep)
      if (depRecord) visit(depRecord, [...path, name])
    }
    state.set(name, 'done')
    out.push(record)
  }
  for (const record of records) visit(record, [])
  return out
}
