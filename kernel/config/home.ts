// Where the agent keeps its data: AGENT_HOME, else ~/.agent.

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

export function resolveAgentHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.AGENT_HOME?.trim()
  return configured ? resolve(configured) : join(homedir(), '.agent')
}

export function homePaths(home: string) {
  return {
    home,
    config: join(home, 'config.yaml'),
    env: join(home, '.env'),
    extensions: join(home, 'extensions'),
    plugins: join(home, 'plugins'),
    state: join(home, 'state.db'),
    logs: join(home, 'logs'),
    pidFile: join(home, 'gateway.pid'),
  }
}
