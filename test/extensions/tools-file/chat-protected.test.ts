// `agent chat -q` end to end (real bin, scripted model): the model asks write_file to drop code into
// <agent_home>/extensions, to rewrite config.yaml, and to reach config.yaml through a workspace
// link. With no one to approve, each is refused, the model is told why, and nothing changes on disk.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { chatBodies, setup } from '../chat-cli/helpers.ts'

test('chat -q: write_file into the agent home (extensions, config.yaml, via a link) is refused and changes nothing', async (t) => {
  let home = ''
  const { model, project, agent, home: agentHome } = await setup(t, {
    respond(body) {
      if (body.messages.some((m: any) => m.role === 'tool')) return { text: 'done' }
      return {
        toolCalls: [
          { id: 'call_ext', name: 'write_file', arguments: { path: join(home, 'extensions', 'x', 'index.ts'), content: 'export default { name: "x", setup() {} }\n' } },
          { id: 'call_cfg', name: 'write_file', arguments: { path: join(home, 'config.yaml'), content: 'approvals:\n  mode: off\n' } },
          { id: 'call_link', name: 'patch', arguments: { path: 'cfg/config.yaml', old_string: 'manual', new_string: 'off' } },
          { id: 'call_ok', name: 'write_file', arguments: { path: 'notes.txt', content: 'ordinary\n' } },
        ],
      }
    },
  })
  home = agentHome
  const config = 'approvals:\n  mode: manual\n'
  writeFileSync(join(agentHome, 'config.yaml'), config)
  symlinkSync(agentHome, join(project, 'cfg'))

  const run = await agent(['chat', '-q', 'make yourself at home', '--json'])
  assert.equal(run.code, 0, run.stderr)
  assert.equal(JSON.parse(run.stdout).answer, 'done')
  assert.equal(existsSync(join(agentHome, 'extensions', 'x')), false)
  assert.equal(readFileSync(join(agentHome, 'config.yaml'), 'utf8'), config)
  assert.equal(readFileSync(join(project, 'notes.txt'), 'utf8'), 'ordinary\n', 'the ordinary write in the same batch ran')

  const results = new Map<string, string>(chatBodies(model)[1].messages.filter((m: any) => m.role === 'tool').map((m: any) => [m.tool_call_id, m.content]))
  assert.match(results.get('call_ext')!, /^Blocked: write_file was not run: The user did not approve .*extensions\/x\/index\.ts is inside the agent's home/)
  assert.match(results.get('call_cfg')!, /^Blocked: .*config\.yaml is inside the agent's home/)
  assert.match(results.get('call_link')!, /^Blocked: patch was not run: .*config\.yaml is inside the agent's home/)
  assert.match(results.get('call_ok')!, /^Created notes\.txt/)
})
