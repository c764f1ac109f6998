// The kernel's log route: warn by default, info once the gateway starts, an explicit level always
// wins, and a taker (the interactive chat) gets the lines until it gives them back.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createKernel } from '../../kernel/kernel.ts'
import { createLogger, LogRoute } from '../../kernel/log.ts'
import { hermeticEnv } from '../../sdk/testing/index.ts'
import { tempDir } from '../helpers/temp.ts'

function routed(explicit?: 'debug' | 'info' | 'warn' | 'error') {
  const lines: string[] = []
  const route = new LogRoute(explicit, { write: (l) => lines.push(l) })
  const log = createLogger('x', { sink: route.out, level: route.level })
  return { lines, route, log }
}

test('info is quiet by default and heard once the default is lowered; an explicit level wins', () => {
  const quiet = routed()
  quiet.log.info('one')
  quiet.log.warn('two')
  quiet.route.setDefaultLevel('info')
  quiet.log.info('three')
  assert.deepEqual(quiet.lines, ['[x] warn: two', '[x] info: three'])

  const explicit = routed('error')
  explicit.route.setDefaultLevel('info')
  explicit.route.take({ write: () => assert.fail('taken lines keep the explicit level') }, 'debug')
  explicit.log.warn('not shown')
})

test('a taker gets the lines until it gives them back; the level is restored', () => {
  const { lines, route, log } = routed()
  const taken: string[] = []
  const giveBack = route.take({ write: (l) => taken.push(l) }, 'info')
  log.info('to the chat')
  giveBack()
  log.info('dropped again')
  log.warn('to stderr')
  assert.deepEqual(taken, ['[x] info: to the chat'])
  assert.deepEqual(lines, ['[x] warn: to stderr'])
})

test('kernel: gateway mode logs info by default, a command does not', async (t) => {
  for (const [mode, expected] of [['gateway', true], ['command', false]] as const) {
    const home = tempDir(t)
    const lines: string[] = []
    const env = hermeticEnv({}, home)
    delete env.AGENT_LOG_LEVEL
    const kernel = createKernel({ home, env, cwd: home, builtinsDir: false, logSink: { write: (l) => lines.push(l) } })
    t.after(() => kernel.shutdown())
    await kernel.load()
    await kernel.start(mode)
    kernel.log.info('heard?')
    assert.equal(lines.includes('[kernel] info: heard?'), expected, mode)
    await kernel.shutdown()
  }
})
