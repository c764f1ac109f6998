// An acknowledged message survives kill -9: a child appends messages and reports each resolved
// append; it is SIGKILLed mid-stream, and every acknowledged message must then be stored (in
// state.db, or in PostgreSQL).

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { SESSIONS_SERVICE, type SessionStore } from 'agent/sdk'
import { backendSkip, createTestKernel, makeTempHome, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'
import { rmSync, writeFileSync } from 'node:fs'

for (const backend of STORAGE_BACKENDS) test(`every acknowledged append survives kill -9 of the writer [${backend}]`, { skip: backendSkip(backend) }, async (t) => {
  const storage = await testStorage(t, backend)
  const home = makeTempHome()
  t.after(() => rmSync(home, { recursive: true, force: true }))
  // The writer (a kernel on this home) and the reader below find the backend in config.yaml.
  writeFileSync(join(home, 'config.yaml'), YAML.stringify(storage.config))
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'writer.ts'), home], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => child.kill('SIGKILL'))
  let lastAck = 0
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`writer made no progress in time: ${stderr}`)), 60_000)
    let buffer = ''
    child.stdout.on('data', (data) => {
      buffer += data
      const lines = buffer.split('\n')
      buffer = lines.pop()!
      for (const line of lines) {
        const match = /^ACK (\d+)$/.exec(line)
        if (match) lastAck = Number(match[1])
      }
      if (lastAck >= 300) {
        clearTimeout(timer)
        child.kill('SIGKILL')
        resolve()
      }
    })
    child.on('exit', () => lastAck < 300 && reject(new Error(`writer exited early: ${stderr}`)))
  })
  assert.equal(await exited, 'SIGKILL')

  const tk = await createTestKernel({ builtins: ['state-db', 'sessions'], home })
  t.after(() => tk.close())
  const store = tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  const messages = await store.messages('durable')
  assert.ok(messages.length >= lastAck, `acknowledged ${lastAck}, found ${messages.length}`)
  const texts = new Set(messages.map((m) => m.content))
  for (let n = 1; n <= lastAck; n++) assert.ok(texts.has(`message number ${n}`), `message ${n} was acknowledged but is lost`)
  const session = (await store.get('durable'))!
  assert.equal(session.messageCount, messages.length, 'the counter was committed with the messages')
  assert.equal(session.apiCalls, messages.length)
  assert.equal((await store.search('number 7', { sessionId: 'durable' })).some((h) => h.messageId === messages[6]!.id), true, 'queued for the index in the same commit, so found once indexed')
})
