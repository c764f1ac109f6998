import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import type { Logger } from 'agent/sdk'
import { makeTempHome } from 'agent/sdk/testing'
import { ensureModel, modelPath } from '../../../extensions/stt/model-download.ts'
import { startFakeModelHost } from './fake-stt.ts'

const MODEL = randomBytes(256 * 1024)

function logger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const add = (line: string) => void lines.push(line)
  return { lines, debug: add, info: add, warn: add, error: add } as Logger & { lines: string[] }
}

async function setup(t: TestContext, options: Parameters<typeof startFakeModelHost>[1] = {}) {
  const host = await startFakeModelHost(MODEL, options)
  const home = makeTempHome('agent-stt-model-')
  t.after(async () => {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  })
  const log = logger()
  const source = (model = 'base') => ({ home, model, url: `${host.url}/models/ggml-{model}.bin?token=s3cr3t`, log })
  return { host, home, log, source }
}

test('first use downloads once (two concurrent first uses share it), never again, atomically', async (t) => {
  const { host, home, log, source } = await setup(t)
  const [a, b] = await Promise.all([ensureModel(source()), ensureModel(source())])
  assert.equal(a, modelPath(home, 'base'))
  assert.equal(b, a)
  assert.equal(host.requests.length, 1, 'one download for two concurrent first uses')
  assert.deepEqual(readFileSync(a), MODEL)
  assert.deepEqual(readdirSync(join(home, 'models')), ['ggml-base.bin'], 'no temporary file left')
  assert.equal(await ensureModel(source()), a)
  assert.equal(host.requests.length, 1, 'a present model is never downloaded again')
  assert.ok(log.lines.some((l) => /downloading the speech model base from http:\/\/127\.0\.0\.1:\d+\/models\/ggml-base\.bin \(0 MB\)/.test(l)))
  assert.ok(log.lines.some((l) => /speech model base: [1-9]0%/.test(l)), 'progress in the log')
  assert.ok(!log.lines.join('\n').includes('s3cr3t'), 'the query string (signed URLs) is not logged')
})

test('a checksum mismatch and a 404 leave no model and no temporary file, and say why', async (t) => {
  const bad = await setup(t, { advertisedSha: 'ab'.repeat(32) })
  await assert.rejects(ensureModel(bad.source()), /failed its checksum \(sha256 [0-9a-f]{64}, expected (ab){32}\)/)
  assert.deepEqual(readdirSync(join(bad.home, 'models')), [])
  const missing = await setup(t)
  await assert.rejects(ensureModel(missing.source('missing')), (error: Error) => /could not be downloaded from http:\/\/127\.0\.0\.1:\d+\/models\/ggml-missing\.bin: HTTP 404$/.test(error.message) && !error.message.includes('s3cr3t'))
  assert.equal(existsSync(modelPath(missing.home, 'missing')), false)
  // After a failure the next use tries again (nothing cached as failed).
  await assert.rejects(ensureModel(missing.source('missing')), /HTTP 404/)
  assert.equal(missing.host.requests.length, 2)
})

test('a configured sha256 wins over the host; a matching one accepts the model', async (t) => {
  const { source, home } = await setup(t)
  const { createHash } = await import('node:crypto')
  await assert.rejects(ensureModel({ ...source(), sha256: 'cd'.repeat(32) }), /expected (cd){32}/)
  const good = createHash('sha256').update(MODEL).digest('hex')
  assert.equal(await ensureModel({ ...source(), sha256: good.toUpperCase() }), modelPath(home, 'base'))
})

test('a model already in place (placed by hand) is used without any request', async (t) => {
  const { host, home, source } = await setup(t)
  mkdirSync(join(home, 'models'))
  writeFileSync(modelPath(home, 'base'), 'a model')
  assert.equal(await ensureModel(source()), modelPath(home, 'base'))
  assert.equal(host.requests.length, 0)
})
