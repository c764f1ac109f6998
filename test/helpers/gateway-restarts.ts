// `agent gateway run` started again and again on one home, as crash-and-restart tests need: each
// start waits until the named adapter runs, every process started is SIGKILLed when the test ends,
// and `log()` keeps the end of all their stderr for assertion messages.

import type { TestContext } from 'node:test'
import { startAgent, type RunningAgent } from './agent-process.ts'

export interface GatewayRestarts {
  /** Starts one more gateway and resolves once `adapter` is among its running adapters. */
  start(): Promise<RunningAgent>
  /** The last 4000 characters of every started gateway's stderr, separated by `---`. */
  log(): string
}

export function gatewayRestarts(t: TestContext, options: { home: string; env: Record<string, string>; adapter: string }): GatewayRestarts {
  const agents: RunningAgent[] = []
  t.after(async () => {
    for (const agent of agents) await agent.stop('SIGKILL')
  })
  const running = new RegExp(`gateway running \\(adapters: [^)]*${options.adapter}`)
  return {
    async start() {
      const agent = startAgent(['gateway', 'run'], { home: options.home, logLevel: 'info', env: options.env })
      agents.push(agent)
      await agent.waitFor(running, 30_000)
      return agent
    },
    log: () => agents.map((a) => a.stderr()).join('\n---\n').slice(-4000),
  }
}
