// What a failed sandboxed command is told about the sandbox, from what it printed: the model then
// knows why, and that outside_sandbox (a person is asked) is the way to do it.

/** A change of a read-only place (EROFS; EBUSY for a mount point). */
const READ_ONLY = /Read-only file system|Device or resource busy/
const READ_ONLY_NOTE = 'the command ran in the terminal sandbox, where protected places (login and shell files, credentials, the agent, system folders, the project\'s .agent and .git/hooks) are read-only; if it must change one, run it again with outside_sandbox: true (a person will be asked)'

/** A container engine's client that found its socket masked (sandbox-extra.ts). */
const ENGINE = /Cannot connect to the Docker daemon|Cannot connect to Podman|(docker|podman|containerd|buildkitd)\.sock\b.*(connection refused|ECONNREFUSED)/i
const ENGINE_NOTE = 'the command ran in the terminal sandbox, where container engines\' sockets (docker, podman, containerd …) are masked because whoever reaches one is root on the host; run it again with outside_sandbox: true (a person will be asked)'

/** The note for a sandboxed command's failure, when its output shows the sandbox refused it. */
export function sandboxNote(output: string): string | undefined {
  if (ENGINE.test(output)) return ENGINE_NOTE
  return READ_ONLY.test(output) ? READ_ONLY_NOTE : undefined
}
