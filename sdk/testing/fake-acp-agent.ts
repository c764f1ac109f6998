// A scripted ACP agent for tests of ACP-shim providers: the command and arguments that start it as a
// real subprocess, a queue of ScriptedTurns it answers prompts with, and the prompts it received.

import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { RecordedRequest, ScriptedTurn } from './scripted-model.ts'

export interface FakeAcpAgent {
  /** The command and arguments that start the agent (node and the script). */
  readonly command: string
  readonly args: string[]
  /** `acp:` plus the command line, for messages. */
  readonly url: string
  /** Each session/prompt received, as `{ method: 'POST', path: 'session/prompt', body: params }`. */
  readonly requests: RecordedRequest[]
  /** The client's answers to the agent's permission requests. */
  permissions(): unknown[]
  enqueue(...turns: ScriptedTurn[]): void
  close(): Promise<void>
}

const SCRIPT = fileURLToPath(new URL('./fake-acp-agent.mjs', import.meta.url))

function readLines(file: string): any[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []
}

export async function startFakeAcpAgent(turns: ScriptedTurn[] = []): Promise<FakeAcpAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-acp-'))
  const queueFile = join(dir, 'queue.json')
  writeFileSync(queueFile, JSON.stringify(turns))
  const args = [SCRIPT, dir]
  return {
    command: process.execPath,
    args,
    url: `acp:${[process.execPath, ...args].join(' ')}`,
    get requests() {
      return readLines(join(dir, 'requests.jsonl')).map((body) => ({ method: 'POST', path: 'session/prompt', headers: {}, body }))
    },
    permissions: () => readLines(join(dir, 'permissions.jsonl')),
    enqueue(...more) {
      const queue = JSON.parse(readFileSync(queueFile, 'utf8'))
      writeFileSync(queueFile, JSON.stringify([...queue, ...more]))
    },
    async close() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
