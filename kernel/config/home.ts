// <agent_home> and the paths inside it.

import { join } from 'node:path'

export { resolveAgentHome } from './home.mjs'

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
