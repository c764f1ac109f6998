// "Did you mean" hints: edit distance between names, and the closest known names to a mistyped one
// (config keys, capability fields, slash commands).

/** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!
    d[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j]!
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = tmp
    }
  }
  return d[b.length]!
}

/** Known names within `maxDistance` edits of `name` (case-insensitive), closest first. */
export function closestNames(name: string, known: readonly string[], maxDistance = 2): string[] {
  return known
    .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
    .filter((x) => x.d <= maxDistance)
    .sort((x, y) => x.d - y.d)
    .map((x) => x.k)
}
