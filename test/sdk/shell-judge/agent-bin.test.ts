// The agent reached another way is still the `agent` program: its bin through node (any spelling
// that resolves to this installation, or any copy's kernel/bin/agent.mjs), the file run directly,
// and package runners (npx, npm exec, pnpm, yarn, bunx). String literals only: nothing here is run.

import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { AGENT_CODE } from '../../../sdk/protected-paths.ts'
import { assessCommand, literalWord } from '../../../sdk/shell-judge/index.ts'
import { programStarts } from '../../../sdk/shell-judge/judge.ts'
import { assertFlagged, assertHarmless } from './cases.ts'

const ROOT = AGENT_CODE.replace(/\/$/, '')
const keysIn = async (command: string, cwd: string) => (await assessCommand(command, { agentHome: '/home/u/.agent', cwd })).dangerous.map((f) => f.key)

test("node running the agent's bin: any spelling of this installation's path", async () => {
  await assertFlagged([
    [`node ${ROOT}/kernel/bin/agent.mjs mcp add evil -- sh -c "rm -rf ~"`, 'rm-home'],
    [`node ${ROOT}/kernel/bin/agent.mjs mcp add evil -- sh -c "id"`, 'agent-config'],
    [`node ${ROOT}//kernel/./bin/../bin/agent.mjs setup`, 'agent-config'],
    [`node --no-warnings --import tsx ${ROOT}/kernel/bin/agent.mjs gateway pair approve K7`, 'agent-access'],
    [`node --title x ${ROOT}/kernel/bin/agent.mjs setup`, 'agent-config'],
    [`nodejs ${ROOT}/kernel/bin/agent.mjs chat -q hi`, 'agent-run'],
    [`bun ${ROOT}/kernel/bin/agent.mjs setup`, 'agent-config'],
    [`${ROOT}/kernel/bin/agent.mjs mcp add evil -- rm -rf ~`, 'rm-home'],
    [`sudo -u me node ${ROOT}/kernel/bin/agent.mjs setup`, 'agent-config'],
    // another copy of the agent works on the same agent home; npm's link to the bin
    ['node kernel/bin/agent.mjs config set approvals.mode off', 'agent-config'],
    ['node ~/src/agent/kernel/bin/agent.mjs setup', 'agent-config'],
    ['node node_modules/.bin/agent setup', 'agent-config'],
    ['yarn node kernel/bin/agent.mjs setup', 'agent-config'],
  ])
  // Relative spellings resolved from the working directory and the script's `cd`.
  assert.ok((await keysIn('node ../bin/agent.mjs config set approvals.mode off', join(ROOT, 'kernel', 'cli'))).includes('agent-config'))
  assert.ok((await keysIn('./agent.mjs setup', join(ROOT, 'kernel', 'bin'))).includes('agent-config'))
  assert.ok((await keysIn(`cd ${ROOT}/kernel && node bin/agent.mjs setup`, '/tmp')).includes('agent-config'))
  assert.deepEqual(await keysIn('node ../bin/agent.mjs mcp list', join(ROOT, 'kernel', 'cli')), [])
})

test('package runners run the agent: npx, npm exec, pnpm, yarn, bunx', async () => {
  await assertFlagged([
    ['npx agent mcp add evil -- rm -rf /', 'rm-root'],
    ['npx agent setup', 'agent-config'],
    ['npx --yes agent config set approvals.mode off', 'agent-config'],
    ['npx -y agent@latest setup', 'agent-config'],
    ['npx -p agent agent setup', 'agent-config'],
    ['npx --package=agent -- agent setup', 'agent-config'],
    ['npx -c "agent setup"', 'agent-config'],
    // an option npx may or may not give a value to: both readings are judged
    ['npx --foo x agent setup', 'agent-config'],
    ['npx --a x --b agent setup', 'agent-config'],
    ['npm exec agent -- setup', 'agent-config'],
    ['npm exec agent -- mcp add evil -- rm -rf ~', 'rm-home'],
    ['npm exec -- agent gateway pair approve K7', 'agent-access'],
    ['npm x --yes agent setup', 'agent-config'],
    ['npm --loglevel silent exec agent setup', 'agent-config'],
    // npm takes options after the program as its own: `--loglevel sessions --cache show` leave `agent setup`
    ['npm exec agent --loglevel sessions --cache show setup', 'agent-config'],
    ['npm exec agent mcp add evil --cache -h', 'agent-config'],
    ['pnpm exec agent setup', 'agent-config'],
    ['pnpm --filter web exec agent setup', 'agent-config'],
    ['pnpm exec -c "agent setup"', 'agent-config'],
    ['pnpm dlx agent setup', 'agent-config'],
    ['pnpm agent setup', 'agent-config'],
    ['pnpx agent setup', 'agent-config'],
    ['yarn agent setup', 'agent-config'],
    ['yarn exec agent setup', 'agent-config'],
    ['yarn run agent chat', 'agent-run'],
    ['yarn dlx agent setup', 'agent-config'],
    ['yarn workspace web agent setup', 'agent-config'],
    ['bunx agent setup', 'agent-config'],
    // what runners run is judged like any command
    ['npx -y sh -c "rm -rf ~"', 'rm-home'],
    ['yarn node -e "process.exit()"', 'inline-script'],
    ['npx "$TOOL"', 'dynamic-command'],
  ])
})

test('look-alikes pass: other programs, runners\' own commands, reading agent commands', async () => {
  await assertHarmless([
    'npx prettier --check .',
    'npx --yes prettier --check .',
    'npx tsc --noEmit -p .',
    'node scripts/build.mjs',
    'node --import tsx scripts/agent.ts',
    'node ./agent.mjs',
    'npm install',
    'npm test',
    'npm run build',
    'npm exec -- prettier --check .',
    'pnpm install',
    'pnpm rm -r lodash',
    'pnpm exec prettier --check .',
    'pnpm lint',
    'yarn install',
    'yarn build',
    'npx agent --help',
    'npx agent mcp list',
    'pnpm exec agent status',
    `node ${ROOT}/kernel/bin/agent.mjs doctor`,
    'node --import tsx kernel/bin/agent.mjs mcp list',
  ])
})

test('programStarts: known switches and values, both readings of other options, --', () => {
  const w = (...values: string[]) => values.map(literalWord)
  const spec = { switches: ['yes', 'y'], values: ['package', 'p'] }
  assert.deepEqual(programStarts(w('npx', '--yes', 'agent', 'x'), 1, spec), [2])
  assert.deepEqual(programStarts(w('npx', '-yy', '-p', 'pkg', 'agent'), 1, spec), [4])
  assert.deepEqual(programStarts(w('npx', '--package=pkg', 'agent'), 1, spec), [2])
  assert.deepEqual(programStarts(w('npx', '--other', 'x', 'agent'), 1, spec), [2, 3])
  assert.deepEqual(programStarts(w('npx', '--', '--yes', 'agent'), 1, spec), [2])
})
