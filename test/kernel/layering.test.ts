// The layering rules of DESIGN.md: sdk/ imports nothing of kernel/ or extensions/ (sdk/testing may
// reach the kernel only through its public entry `agent/kernel`); extensions import no kernel files
// and no other extension's files.

import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

function files(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...files(path))
    else if (/\.(ts|mts|mjs|js)$/.test(name)) out.push(path)
  }
  return out
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs: string[] = []
  for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g)) {
    specs.push((m[1] ?? m[2] ?? m[3])!)
  }
  return specs
}

test('sdk/ imports nothing from kernel/ or extensions/', () => {
  const bad: string[] = []
  for (const file of files(join(root, 'sdk'))) {
    for (const spec of imports(file)) {
      const target = spec.startsWith('.') ? relative(root, resolve(dirname(file), spec)) : spec
      const internal = target.startsWith(`kernel${sep}`) || target.startsWith(`extensions${sep}`)
      const allowedEntry = spec === 'agent/kernel' && file.includes(`${sep}sdk${sep}testing${sep}`)
      if (internal || (spec.startsWith('agent/kernel') && !allowedEntry) || spec.startsWith('agent/extensions')) bad.push(`${relative(root, file)} → ${spec}`)
    }
  }
  assert.deepEqual(bad, [])
})

test('extensions import the sdk and their own files only', () => {
  const bad: string[] = []
  for (const file of files(join(root, 'extensions'))) {
    const own = relative(root, file).split(sep).slice(0, 2).join(sep)
    for (const spec of imports(file)) {
      if (spec.startsWith('agent/kernel')) bad.push(`${relative(root, file)} → ${spec}`)
      if (!spec.startsWith('.')) continue
      const target = relative(root, resolve(dirname(file), spec))
      if (!target.startsWith(own + sep)) bad.push(`${relative(root, file)} → ${spec}`)
    }
  }
  assert.deepEqual(bad, [])
})

test('the rule catches a violation (the scanner is not blind)', () => {
  const specs = imports(join(root, 'kernel', 'kernel.ts'))
  assert.ok(specs.some((s) => s.startsWith('../sdk/')), 'kernel imports the sdk relatively, so the scanner sees relative imports')
})
