// Inbound attachments: fetched from the daemon with `getAttachment` (base64) into
// <agent_home>/cache/signal/, and described to the agent in one line each (name, type, size, where
// it was saved). Attachments over the size limit, or that fail, are described as skipped. Audio (voice
// notes) is also transcribed: its line is followed by what was said (sdk/voice.ts).

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { errorMessage, isAudioAttachment, type InboundAudio } from 'agent/sdk'
import type { Attachment } from './envelope.ts'
import { rpc } from './rpc.ts'
import type { Daemon } from './settings.ts'

const size = (bytes: number | undefined) => (bytes === undefined ? 'size unknown' : bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`)

/** One line per attachment, for the text the agent reads. */
export async function describeAttachments(daemon: Daemon, home: string, attachments: Attachment[], maxBytes: number, transcribe?: (audio: InboundAudio) => Promise<string>): Promise<string[]> {
  const lines: string[] = []
  for (const attachment of attachments) {
    const name = attachment.filename || attachment.id!
    const kind = `${attachment.contentType ? `${attachment.contentType}, ` : ''}${size(attachment.size)}`
    if ((attachment.size ?? 0) > maxBytes) {
      lines.push(`[attachment: ${name} (${kind}) not downloaded: larger than ${size(maxBytes)}]`)
      continue
    }
    try {
      const result = await rpc<{ data?: string } | string>(daemon, 'getAttachment', { id: attachment.id })
      const data = Buffer.from(typeof result === 'string' ? result : (result?.data ?? ''), 'base64')
      if (data.length > maxBytes) throw new Error(`larger than ${size(maxBytes)}`)
      const dir = join(home, 'cache', 'signal')
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      // The id comes from the daemon: kept to a plain file name.
      const path = join(dir, attachment.id!.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_'))
      writeFileSync(path, data, { mode: 0o600 })
      lines.push(`[attachment: ${name} (${kind}) saved at ${path}]`)
      if (transcribe && isAudioAttachment(attachment.contentType, attachment.filename)) {
        lines.push(await transcribe({ filename: name, ...(attachment.contentType ? { mimeType: attachment.contentType } : {}), fetch: async () => data }))
      }
    } catch (error) {
      lines.push(`[attachment: ${name} (${kind}) could not be downloaded: ${errorMessage(error)}]`)
    }
  }
  return lines
}
