// `agent doctor` reports the voice setup (a real CLI run), and the transcribe_audio tool reads a
// file through the stt service; the tools declare stt.provider and tts.provider for `agent tools`.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import type { ToolDefinition } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { runAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { toneWav } from './audio-fixtures.ts'
import { startFakeTranscriptionApi } from './fake-stt.ts'

const KEY = 'sk-stt-doctor-key-0123456789'

test('agent doctor: a Voice section with the stt provider, its fallback and the tts provider', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ stt: { provider: 'api' }, tts: { provider: 'elevenlabs' } }))
  const r = await runAgent(['doctor', '--json', '--offline'], { home, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', AGENT_MODEL: 'm' }, timeoutMs: 60_000 })
  const report = JSON.parse(r.stdout)
  const voice = report.checks.filter((c: any) => c.section === 'Voice').map((c: any) => [c.subject, c.verdict])
  assert.deepEqual(voice, [['stt.provider', 'info'], ['stt local', 'ok'], ['stt api', 'info'], ['speech-to-text', 'warn'], ['tts.provider', 'warn']], r.stdout)
  const tools = report.checks.filter((c: any) => c.section === 'Tools' && /^(stt|tts)\.provider=/.test(c.subject)).map((c: any) => [c.subject, c.verdict])
  assert.deepEqual(tools, [['stt.provider=local', 'ok'], ['stt.provider=api', 'fail'], ['tts.provider=edge', 'ok'], ['tts.provider=elevenlabs', 'fail'], ['tts.provider=openai', 'info']])
})

test('transcribe_audio: a file in the working directory; a folder or a missing file is refused', async (t) => {
  const api = await startFakeTranscriptionApi(KEY, { text: 'from the file' })
  t.after(() => api.close())
  const k = await createTestKernel({ builtins: ['stt'], config: { stt: { provider: 'api', api: { base_url: `${api.url}/v1` } } }, env: { STT_API_KEY: KEY } })
  t.after(() => k.close())
  const cwd = join(k.home, 'work')
  mkdirSync(join(cwd, 'folder.wav'), { recursive: true })
  writeFileSync(join(cwd, 'note.wav'), toneWav())
  const tool = k.kernel.registries.tools.get('transcribe_audio') as ToolDefinition
  const call = async (path: string) => tool.execute({ input: { path }, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd } })
  assert.deepEqual(await call('note.wav'), { text: 'from the file', provider: 'api' })
  await assert.rejects(call('folder.wav'), /folder\.wav is not a file/)
  await assert.rejects(call('missing.ogg'), /missing\.ogg is not a file/)
  assert.equal(api.requests.length, 1)
})
