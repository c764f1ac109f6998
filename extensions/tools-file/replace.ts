// Replacing a file's content without following links: a temporary file made beside it (O_EXCL,
// O_NOFOLLOW), the folder's real path checked again just before the rename, then the rename,
// which replaces a link at the final name instead of writing through it. write-file-atomic is not
// used here: it resolves the final name with realpath first, so a link planted there between the
// guard's check and the write (a race a background process of the model can run) was written
// through, to wherever it pointed.

import { constants } from 'node:fs'
import { lstat, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { randomHex, realPath } from 'agent/sdk'

/** Replaces (or creates) `path`, a real path the guard approved, with `content`; its mode (and owner, as root) kept. */
export async function replaceFile(path: string, content: string): Promise<void> {
  const dir = dirname(path)
  const previous = await lstat(path).catch(() => undefined)
  const mode = previous?.isFile() ? previous.mode & 0o7777 : 0o666
  const temporary = join(dir, `.${basename(path)}.${randomHex(6)}.tmp`)
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode)
  try {
    try {
      await handle.writeFile(content, 'utf8')
      // open() applied the umask: a kept mode is set as it was, and the owner too when we may.
      if (previous?.isFile()) await handle.chmod(mode)
      if (previous?.isFile() && process.getuid?.() === 0) await handle.chown(previous.uid, previous.gid)
      await handle.sync()
    } finally {
      await handle.close()
    }
    // A folder on the way swapped for a link since the check: the rename would land there.
    if (realPath(dir) !== dir) throw new Error(`${dir} changed while writing (a link appeared on the way); nothing was written`)
    await rename(temporary, path)
  } catch (error) {
    await unlink(temporary).catch(() => undefined)
    throw error
  }
}
