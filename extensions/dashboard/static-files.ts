// The page and its ES modules, served as files (no build step): the dashboard's own `ui/` folder and
// a fixed list of library files from node_modules, whose bare `preact` import is pointed at the
// served copy (an import map would be an inline script, which the CSP forbids). Each file is read
// once, compressed once (brotli or gzip, as the browser accepts) and answered 304 when unchanged.

import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { HttpError, type HttpContext } from 'agent/sdk'

const UI_DIR = join(import.meta.dirname, 'ui')
const require = createRequire(import.meta.url)
const moduleDir = (specifier: string) => dirname(require.resolve(specifier))

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

/** Served name → where it comes from (and how its imports are rewritten). */
const VENDOR: Record<string, () => string> = {
  'preact.mjs': () => readFileSync(join(moduleDir('preact'), 'preact.mjs'), 'utf8'),
  'hooks.mjs': () => readFileSync(join(moduleDir('preact/hooks'), 'hooks.mjs'), 'utf8').replace(/from\s*"preact"/g, 'from"./preact.mjs"'),
  'htm.mjs': () => readFileSync(join(moduleDir('htm'), 'htm.mjs'), 'utf8'),
  'uplot.mjs': () => readFileSync(join(moduleDir('uplot/dist/uPlot.min.css'), 'uPlot.esm.js'), 'utf8'),
  'uplot.css': () => readFileSync(join(moduleDir('uplot/dist/uPlot.min.css'), 'uPlot.min.css'), 'utf8'),
}

interface Served {
  type: string
  etag: string
  raw: Buffer
  gzip?: Buffer
  brotli?: Buffer
}

const cache = new Map<string, Served>()

function load(key: string, read: () => string | Buffer, name: string): Served {
  let served = cache.get(key)
  if (!served) {
    const raw = Buffer.from(read())
    const ext = name.slice(name.lastIndexOf('.'))
    served = { type: TYPES[ext] ?? 'application/octet-stream', etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`, raw }
    cache.set(key, served)
  }
  return served
}

const SAFE_NAME = /^[a-z0-9][a-z0-9._-]*\.(html|js|mjs|css|svg)$/

function send(ctx: HttpContext, served: Served): void {
  ctx.set('Cache-Control', 'no-cache')
  ctx.set('ETag', served.etag)
  ctx.set('Vary', 'Accept-Encoding')
  if (ctx.get('if-none-match') === served.etag) {
    ctx.status = 304
    return
  }
  ctx.type = served.type
  const accepts = ctx.get('accept-encoding')
  if (/\bbr\b/.test(accepts)) {
    served.brotli ??= brotliCompressSync(served.raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } })
    ctx.set('Content-Encoding', 'br')
    ctx.body = served.brotli
  } else if (/\bgzip\b/.test(accepts)) {
    served.gzip ??= gzipSync(served.raw, { level: 9 })
    ctx.set('Content-Encoding', 'gzip')
    ctx.body = served.gzip
  } else ctx.body = served.raw
}

export function sendUiFile(ctx: HttpContext, name: string): void {
  if (!SAFE_NAME.test(name)) throw new HttpError(404, `No file ${name}`, { code: 'not_found' })
  let served: Served
  try {
    served = load(`ui/${name}`, () => readFileSync(join(UI_DIR, name)), name)
  } catch {
    throw new HttpError(404, `No file ${name}`, { code: 'not_found' })
  }
  send(ctx, served)
}

export function sendVendorFile(ctx: HttpContext, name: string): void {
  const read = Object.hasOwn(VENDOR, name) ? VENDOR[name] : undefined
  if (!read) throw new HttpError(404, `No file ${name}`, { code: 'not_found' })
  send(ctx, load(`vendor/${name}`, read, name))
}
