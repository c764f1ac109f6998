// The storage lines of `agent doctor` and `agent status`: the backend; on PostgreSQL the server's
// version and round trip, and each declared owner's schema against what the database has applied
// (pending, current, newer than this agent); an unreachable or silent server fails in bounded time;
// the password is never shown.

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import YAML from 'yaml'
import { defineExtension, STORAGE_SERVICE, type StorageService } from 'agent/sdk'
import { backendSkip, createTestKernel, makeTempHome, testStorage } from 'agent/sdk/testing'
import { checkStorage } from '../../../extensions/doctor/database.ts'
import { Report } from '../../../extensions/doctor/report.ts'
import { runAgent } from '../../helpers/agent-process.ts'

const NOTES = [
  { version: 1, up: 'CREATE TABLE notes (id BIGINT PRIMARY KEY)' },
  { version: 2, up: 'ALTER TABLE notes ADD COLUMN body TEXT' },
]
const notes = defineExtension({
  name: 'test-notes',
  version: '1.0.0',
  dependsOn: ['storage'],
  setup: (api) => api.services.require<StorageService>(STORAGE_SERVICE).declare('test-notes', NOTES),
})

async function doctor(t: TestContext, config: Record<string, unknown>, timeoutMs = 5000) {
  const k = await createTestKernel({ builtins: ['state-db', 'storage'], extensions: [notes], config })
  t.after(() => k.close())
  const report = new Report()
  await checkStorage(report, k.kernel, timeoutMs)
  const line = (subject: string) => report.lines.find((l) => l.section === 'Storage' && l.subject === subject)
  return { k, report, line, storage: k.kernel.services.require<StorageService>(STORAGE_SERVICE) }
}

async function listening(handler: (socket: import('node:net').Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: (server.address() as { port: number }).port }
}

test('SQLite: the backend line says so', async (t) => {
  const { line } = await doctor(t, {})
  assert.equal(line('backend')?.verdict, 'ok')
  assert.match(line('backend')!.detail, /^SQLite/)
  assert.equal(line('server'), undefined)
})

describe('PostgreSQL', { skip: backendSkip('postgres') }, () => {
  test('server version and round trip; each schema pending, current or newer than this agent', async (t) => {
    const storage = await testStorage(t, 'postgres')
    const password = new URL(storage.url!).password
    const { line, storage: service } = await doctor(t, storage.config)
    assert.match(line('backend')!.detail, /^PostgreSQL at postgres:\/\/agent_test(:\*\*\*)?@127\.0\.0\.1/)
    assert.equal(line('server')?.verdict, 'ok')
    assert.match(line('server')!.detail, /^PostgreSQL \d+(\.\d+)?.*, connected in \d+ ms, round trip \d+\.\d ms$/)
    assert.deepEqual([line('schema test-notes')?.verdict, line('schema test-notes')?.detail], ['info', 'version 0 of 2: the rest is applied on first use'])
    assert.equal(line('schema storage')?.verdict, 'info')

    const pg = service.postgres()
    await pg.migrate('test-notes', NOTES.slice(0, 1))
    const after1 = await doctor(t, storage.config)
    assert.equal(after1.line('schema test-notes')?.detail, 'version 1 of 2: the rest is applied on first use')
    await pg.migrate('test-notes', NOTES)
    const after2 = await doctor(t, storage.config)
    assert.deepEqual([after2.line('schema test-notes')?.verdict, after2.line('schema test-notes')?.detail], ['ok', 'version 2'])
    await pg.query("INSERT INTO schema_migrations VALUES ('test-notes', 3, 0)")
    const newer = await doctor(t, storage.config)
    assert.equal(newer.line('schema test-notes')?.verdict, 'warn')
    assert.match(newer.line('schema test-notes')!.detail, /version 3 in the database, this agent knows up to 2/)
    if (password) assert.equal(JSON.stringify([after2.report.lines, newer.report.lines]).includes(`:${password}@`), false)
  })

  test('a closed port and a silent server fail on the server line within the deadline, password masked', async (t) => {
    const closed = await listening(() => undefined)
    await new Promise<void>((r) => closed.server.close(() => r()))
    const refused = await doctor(t, { storage: { url: `postgres://u:hunter22@127.0.0.1:${closed.port}/d`, connect_timeout_seconds: 2 } })
    assert.equal(refused.line('server')?.verdict, 'fail')
    assert.match(refused.line('server')!.detail, /^unreachable: postgres:\/\/u:\*\*\*@127\.0\.0\.1:\d+\/d/)
    assert.equal(refused.line('schema test-notes'), undefined, 'no schema lines without a server')

    const sockets: import('node:net').Socket[] = []
    const silent = await listening((s) => void sockets.push(s))
    t.after(() => {
      for (const s of sockets) s.destroy()
      silent.server.close()
    })
    const started = Date.now()
    const hung = await doctor(t, { storage: { url: `postgres://u:hunter22@127.0.0.1:${silent.port}/d`, connect_timeout_seconds: 2 } }, 500)
    assert.ok(Date.now() - started < 2000, `bounded: ${Date.now() - started} ms`)
    assert.equal(hung.line('server')?.verdict, 'fail')
    assert.match(hung.line('server')!.detail, /no answer within/)
    assert.equal(JSON.stringify([refused.report.lines, hung.report.lines]).includes('hunter22'), false)
  })

  test('through the real bin: doctor and status name the backend, never the password', async (t) => {
    const storage = await testStorage(t, 'postgres')
    const dir = makeTempHome('agent-doctor-pg-')
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const url = new URL(storage.url!)
    writeFileSync(join(dir, 'config.yaml'), YAML.stringify({ _config_version: 10, storage: { url: url.href } }))
    const d = await runAgent(['doctor', '--json', '--offline'], { home: dir, timeoutMs: 60_000 })
    const lines = JSON.parse(d.stdout).checks.filter((c: any) => c.section === 'Storage')
    assert.equal(lines.find((c: any) => c.subject === 'server')?.verdict, 'ok', d.stdout)
    assert.ok(lines.some((c: any) => c.subject === 'schema storage'), JSON.stringify(lines))
    const s = await runAgent(['status', '--json'], { home: dir, timeoutMs: 60_000 })
    assert.equal(s.code, 0, s.stderr)
    assert.match(JSON.parse(s.stdout).storage.url, /^postgres:\/\/agent_test:\*\*\*@/)
    if (url.password) assert.equal((d.stdout + d.stderr + s.stdout + s.stderr).includes(`:${url.password}@`), false)
  })
})
