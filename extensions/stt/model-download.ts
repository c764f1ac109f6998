// The local engine's model file, fetched on first use into <agent_home>/models/: streamed to a
// temporary file beside it with progress in the log, checked (size from Content-Length, sha256 from
// `stt.local.model_sha256` or the host's `X-Linked-Etag` when it is one), then renamed into place, so
// a half-written model is never used. Concurrent first uses share one download; a present file is
// never downloaded again.

import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Logger } from 'agent/sdk'

export interface ModelSource {
  home: string
  /** `base`, `small.en` …: the file is `ggml-<model>.bin`. */
  model: string
  /** `{model}` is replaced by the model name. */
  url: string
  sha256?: string
  log: Logger
}

const inFlight = new Map<string, Promise<string>>()

export function modelPath(home: string, model: string): string {
  return join(home, 'models', `ggml-${model}.bin`)
}

/** Whether the model file is already here (then no download happens). */
export function modelPresent(home: string, model: string): boolean {
  const path = modelPath(home, model)
  return existsSync(path) && statSync(path).size > 0
}

/** The model's path, downloading it first when absent. Rejects with a one-line reason (no secrets). */
export function ensureModel(source: ModelSource): Promise<string> {
  const path = modelPath(source.home, source.model)
  if (modelPresent(source.home, source.model)) return Promise.resolve(path)
  let pending = inFlight.get(path)
  if (!pending) {
    pending = download(source, path).finally(() => inFlight.delete(path))
    inFlight.set(path, pending)
  }
  return pending
}

/** The URL as it may be shown: no credentials, no query string (signed URLs carry tokens there). */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}`
}

async function download(source: ModelSource, path: string): Promise<string> {
  const url = new URL(source.url.replaceAll('{model}', source.model))
  const response = await fetch(url, { redirect: 'follow' }).catch((error: Error) => {
    throw new Error(`the speech model could not be downloaded from ${shown(url)}: ${error.message}`)
  })
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined)
    throw new Error(`the speech model could not be downloaded from ${shown(url)}: HTTP ${response.status}`)
  }
  const size = Number(response.headers.get('content-length') ?? response.headers.get('x-linked-size') ?? NaN)
  const etag = response.headers.get('x-linked-etag')?.replaceAll('"', '').toLowerCase()
  const expectedSha = source.sha256?.toLowerCase() ?? (etag && /^[0-9a-f]{64}$/.test(etag) ? etag : undefined)
  mkdirSync(join(source.home, 'models'), { recursive: true })
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.part`
  const hash = createHash('sha256')
  let received = 0
  let reported = 0
  source.log.info(`downloading the speech model ${source.model} from ${shown(url)}${Number.isFinite(size) ? ` (${(size / 1048576).toFixed(0)} MB)` : ''}`)
  try {
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>)
    body.on('data', (chunk: Buffer) => {
      hash.update(chunk)
      received += chunk.length
      const percent = Number.isFinite(size) && size > 0 ? Math.floor((received / size) * 10) * 10 : 0
      if (percent > reported && percent < 100) {
        reported = percent
        source.log.info(`speech model ${source.model}: ${percent}%`)
      }
    })
    await pipeline(body, createWriteStream(temp, { mode: 0o644 }))
    if (Number.isFinite(size) && received !== size) throw new Error(`the speech model download was cut short (${received} of ${size} bytes)`)
    const sha = hash.digest('hex')
    if (expectedSha && sha !== expectedSha) throw new Error(`the speech model from ${shown(url)} failed its checksum (sha256 ${sha}, expected ${expectedSha})`)
    renameSync(temp, path)
    source.log.info(`speech model ${source.model} saved at ${path}`)
    return path
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}
