// Reads a package tarball (.tgz, the format `npm pack` writes) without extracting it: the file list
// and package.json. Used to validate a plugin's manifest before any of its files land on disk.

import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

const BLOCK = 512
const MAX_UNPACKED = 256 * 1024 * 1024

export interface PackedPackage {
  /** Paths inside the package, `/`-separated, without the top folder (`package/`). */
  files: string[]
  packageJson: Record<string, unknown>
}

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length)
  const end = raw.indexOf(0)
  return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8')
}

/** pax extended header records: `<len> <key>=<value>\n`. */
function paxPath(data: Buffer): string | undefined {
  const text = data.toString('utf8')
  const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(text)
  return match?.[1]
}

export function readTarball(path: string): PackedPackage {
  let tar: Buffer
  try {
    tar = gunzipSync(readFileSync(path), { maxOutputLength: MAX_UNPACKED })
  } catch (error) {
    throw new Error(`${path}: not a readable .tgz package (${(error as Error).message})`, { cause: error })
  }
  const files: string[] = []
  let packageJson: Buffer | undefined
  let nextPath: string | undefined
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const header = tar.subarray(offset, offset + BLOCK)
    if (header.every((b) => b === 0)) break
    const size = parseInt(field(header, 124, 12).trim() || '0', 8)
    const type = String.fromCharCode(header[156] || 48)
    const prefix = field(header, 345, 155)
    const name = nextPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100))
    const data = tar.subarray(offset + BLOCK, offset + BLOCK + size)
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK
    if (type === 'x') {
      nextPath = paxPath(data)
      continue
    }
    nextPath = undefined
    if (type !== '0' && type !== '\0' && type !== '7') continue
    // Drop the top folder npm puts everything in (`package/`, or the repo name for some git packs).
    const inner = name.split('/').slice(1).join('/')
    if (!inner) continue
    files.push(inner)
    if (inner === 'package.json') packageJson = Buffer.from(data)
  }
  if (!packageJson) throw new Error(`${path}: the package has no package.json`)
  let parsed: unknown
  try {
    parsed = JSON.parse(packageJson.toString('utf8'))
  } catch {
    throw new Error(`${path}: package.json is not valid JSON`)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${path}: package.json is not an object`)
  return { files, packageJson: parsed as Record<string, unknown> }
}
