// Long-running agents a test started (startAgent), by the folders they use. Removing a temporary
// folder first stops the agents still using it: after hooks run in the order they were added, a
// home is made (and its removal hooked) before the agent that uses it starts, and a removal that
// races a live gateway fails (ENOTEMPTY) and skips the hooks after it, the agent's stop included.

import { sep } from 'node:path'

interface Stoppable {
  stop(signal?: NodeJS.Signals): Promise<unknown>
}

const running = new Map<Stoppable, string[]>()

/** Remembers `agent` as using `folders` until `untrack` (its exit). */
export function track(agent: Stoppable, folders: string[]): () => void {
  running.set(agent, folders)
  return () => void running.delete(agent)
}

/** Stops (its default signal, then SIGKILL) every tracked agent whose home or working folder is `dir` or inside it. */
export async function stopAgentsIn(dir: string): Promise<void> {
  const inside = (folder: string) => folder === dir || folder.startsWith(dir + sep)
  await Promise.all([...running].filter(([, folders]) => folders.some(inside)).map(([agent]) => agent.stop()))
}
