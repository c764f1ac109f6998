// The terminal sandbox's mode, read in one place (sdk/terminal-sandbox.ts) by tools-terminal and the
// approvals guard: the environment wins, and anything but auto, bwrap or off is an error, never "off".
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { terminalSandboxMode } from 'agent/sdk'
import { approvalsKernel } from '../extensions/approvals/harness.ts'

const settings = (env: Record<string, string>, config: Record<string, unknown> = {}) => ({ env: (name: string) => env[name], get: <T>(path: string) => config[path] as T })

test('terminal sandbox mode: the environment wins, blank falls back, the default is auto', () => {
  assert.equal(terminalSandboxMode(settings({})), 'auto')
  assert.equal(terminalSandboxMode(settings({}, { 'terminal.sandbox': 'bwrap' })), 'bwrap')
  assert.equal(terminalSandboxMode(settings({ AGENT_TERMINAL_SANDBOX: ' off ' }, { 'terminal.sandbox': 'bwrap' })), 'off')
  assert.equal(terminalSandboxMode(settings({ AGENT_TERMINAL_SANDBOX: '  ' }, { 'terminal.sandbox': 'bwrap' })), 'bwrap')
  assert.equal(terminalSandboxMode(settings({}), 'off'), 'off', 'the extension passes its validated config')
})

test('terminal sandbox mode: a mistyped value is an error naming where it came from, never "off"', () => {
  assert.throws(() => terminalSandboxMode(settings({ AGENT_TERMINAL_SANDBOX: 'Off' })), /AGENT_TERMINAL_SANDBOX must be one of auto, bwrap, off \(got "Off"\)/)
  assert.throws(() => terminalSandboxMode(settings({}, { 'terminal.sandbox': false })), /terminal\.sandbox must be one of auto, bwrap, off \(got false\)/)
})

test('approvals: leaving the sandbox is a finding unless the mode is exactly off (a typo counts as on)', async (t) => {
  const input = { command: 'echo hi', outside_sandbox: true }
  const verdict = async (env: Record<string, string>) => {
    const k = await approvalsKernel({ builtins: ['approvals'], env })
    t.after(() => k.close())
    // No one to ask (no chat, no terminal): a finding is refused.
    const found = await k.kernel.hooks.beforeToolCall.promise({ tool: 'terminal', toolset: 'terminal', callId: 'c-1', input, session: { id: 's-1', cwd: process.cwd() }, modifiesFiles: true })
    return found?.reason
  }
  assert.match(String(await verdict({ AGENT_TERMINAL_SANDBOX: 'Off' })), /outside the terminal sandbox/i)
  assert.match(String(await verdict({})), /outside the terminal sandbox/i)
  assert.equal(await verdict({ AGENT_TERMINAL_SANDBOX: 'off' }), undefined)
})
