// Temporary directories that a test removes when it ends.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { stopAgentsIn } from './running.ts'

export function tempDir(t: TestContext, prefix = 'agent-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  // An agent still using it is stopped first (running.ts); retried: a process the test started may
  // still be creating files in it as it stops (ENOTEMPTY).
  t.after(async () => {
    await stopAgentsIn(dir)
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
  })
  return dir
}
