// Where the agent keeps its data: AGENT_HOME, else ~/.agent. Plain JS: the bin needs it before any
// TypeScript is loaded.

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

export function resolveAgentHome(env = process.env) {
  const configured = env.AGENT_HOME?.trim()
  return configured ? resolve(configured) : join(homedir(), '.agent')
}
