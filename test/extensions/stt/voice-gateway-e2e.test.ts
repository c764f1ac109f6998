// A voice note through a real `agent gateway run` on the Discord fake: the adapter downloads the
// attachment (a loopback "CDN"), the stt service transcribes it on a loopback transcription API, the
// agent answers the transcript; `/voice all` then makes the next reply arrive as audio (the Edge
// protocol fake) before its text; a failing voice leaves the text alone.

import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { dmChannel, startFakeDiscord, USERS } from '../discord/fake-discord.ts'
import { answerFor, lastUser, TOKEN } from '../discord/harness.ts'
import { AUDIO, startFakeEdge } from '../tts/fake-tts.ts'
import { OGG_HEADER } from './audio-fixtures.ts'
import { startFakeTranscriptionApi } from './fake-stt.ts'

const STT_KEY = 'sk-stt-e2e-key-0123456789'

test('a Discord voice note is transcribed before the agent sees it; /voice all speaks the reply first', async (t) => {
  const discord = await startFakeDiscord({ token: TOKEN, heartbeatIntervalMs: 5000 })
  t.after(() => discord.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)) }) })
  t.after(() => model.close())
  const stt = await startFakeTranscriptionApi(STT_KEY, { text: 'what is the weather in Paris' })
  t.after(() => stt.close())
  const edge = await startFakeEdge()
  t.after(() => edge.close())
  const cdnRequests: string[] = []
  const cdn = createServer((req, res) => {
    cdnRequests.push(req.url ?? '')
    res.writeHead(200, { 'content-type': 'audio/ogg' }).end(OGG_HEADER)
  })
  await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => cdn.close(() => resolve())))
  const cdnUrl = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}/attachments/voice-message.ogg`

  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({
    _config_version: 10,
    gateway: { human_delay: { min_ms: 0, max_ms: 20 } },
    platforms: { discord: { extra: { connect_timeout_seconds: 20 } } },
    stt: { provider: 'api', api: { base_url: `${stt.url}/v1` } },
    tts: { edge: { endpoint: edge.url } },
  }))
  const agent = startAgent(['gateway', 'run'], {
    home,
    env: {
      WEBHOOK_PORT: '0', API_SERVER_PORT: '0', AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'test-key', AGENT_MODEL: 'scripted-model',
      DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_BASE_URL: discord.apiBase, DISCORD_ALLOWED_USERS: USERS.alice.id, STT_API_KEY: STT_KEY,
    },
  })
  t.after(() => agent.stop('SIGKILL'))
  await agent.waitFor(/gateway running \(adapters: [^)]*discord/, 30_000)
  const dm = dmChannel('alice')
  const bodies = () => discord.messages.filter((m) => m.channelId === dm).map((m) => m.body)
  const until = async (count: number) => assert.ok(await discord.until(() => bodies().length >= count, 20_000), `only ${bodies().length} messages; stderr: ${agent.stderr().slice(-3000)}`)
  const voiceNote = () => discord.message({ from: 'alice', content: '', attachments: [{ filename: 'voice-message.ogg', content_type: 'audio/ogg', size: OGG_HEADER.length, url: cdnUrl }] })

  voiceNote()
  await until(1)
  const prompt = lastUser(model.requests.at(-1)!.body)
  assert.match(prompt, /\[voice message, transcribed\]: what is the weather in Paris$/)
  assert.equal(cdnRequests.length, 1)
  assert.equal(stt.requests[0]!.headers.authorization, `Bearer ${STT_KEY}`)
  assert.match(bodies()[0]!.content, /^answer to: .*what is the weather in Paris$/s)
  assert.equal(edge.connections.length, 0, 'voice mode is off by default')

  discord.message({ from: 'alice', content: '/voice all' })
  await until(2)
  assert.match(bodies()[1]!.content, /^Voice mode: all/)

  voiceNote()
  await until(4)
  const [audio, text] = bodies().slice(2)
  assert.equal(typeof audio, 'string', 'the audio goes first, as a multipart upload')
  assert.match(audio, /filename="speech\.mp3"/)
  assert.ok(audio.includes(Buffer.concat(AUDIO).toString()), 'the Edge audio is attached')
  assert.match(text.content, /^answer to: /)
  assert.equal(edge.connections.length, 1)
  assert.match(edge.connections[0]!.frames[1]!, /answer to: /)

  // The voice service goes away: the reply is text only, with a warning in the log.
  await edge.close()
  discord.message({ from: 'alice', content: 'and now?' })
  await until(5)
  assert.equal(bodies()[4]!.content, 'answer to: and now?')
  assert.match(agent.stderr(), /voice reply to discord \d+ not spoken, sending text only/)
  assert.equal(await agent.stop('SIGINT'), 0)
  assert.ok(!(agent.stderr() + agent.stdout()).includes(STT_KEY))
})
