// The modes of the folders the terminal sandbox pins (sandbox-sentry.ts sets them back). A mount
// point cannot be renamed, but it can be chmod-ed: `chmod 777 ~` (sshd then refuses the keys, other
// users can write there), the sticky bit of /tmp taken away by a command run as root. Each folder is
// held open from the start, so its mode is read and set on that folder itself, never on whatever a
// path leads to later (a link a command put on the way).

import { closeSync, constants, fchmodSync, fstatSync, openSync } from 'node:fs'

interface Held {
  dir: string
  fd: number
  mode: number
  /** In a working folder: the project's own chmod is its business, except taking the owner's rights. */
  inWork: boolean
}

export class HeldModes {
  private readonly held: Held[] = []

  constructor(modes: ReadonlyArray<readonly [dir: string, mode: number, inWork: boolean]>) {
    for (const [dir, mode, inWork] of modes) {
      try {
        this.held.push({ dir, fd: openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW), mode, inWork })
      } catch {
        // A link or gone by now: nothing of ours to hold.
      }
    }
  }

  /**
   * Each folder's mode set back where a command loosened it (write or search for others, the sticky
   * bit taken) or took the owner's rights (the agent could not repair inside it then); inside working
   * folders only the latter. Tightening (a `chmod 700 ~` of your own) is left as it is. `look` runs
   * each check (it reports a failure); `note` is told of each change set back.
   */
  check(look: (dir: string, run: () => void) => void, note: (text: string) => void): void {
    for (const held of this.held) {
      look(held.dir, () => {
        const now = fstatSync(held.fd).mode & 0o7777
        const loosened = (now & ~held.mode & 0o777) !== 0 || ((held.mode & 0o1000) !== 0 && (now & 0o1000) === 0)
        const ownerLost = (held.mode & 0o700 & ~now) !== 0
        if (!ownerLost && (held.inWork || !loosened)) return
        fchmodSync(held.fd, held.mode)
        note(`${held.dir} had its mode changed to ${now.toString(8)}; it was set back to ${held.mode.toString(8)}`)
      })
    }
  }

  close(): void {
    for (const { fd } of this.held.splice(0)) closeSync(fd)
  }
}
