// Searchers that read whole folders: grep told to recurse, ripgrep and ag told to include hidden
// files, ack; over a folder that holds secrets (the home's ~/.ssh, the agent's .env, its credential
// folders) they are secret reads. String literals only: nothing here is run.

import { test } from 'node:test'
import { assertFlagged, assertHarmless } from './cases.ts'

test('a recursive search of a folder holding secrets is a secret read', async () => {
  await assertFlagged([
    ['grep -r token /home/u/.agent', 'secret-read'],
    ['grep -rn access_token /home/u/.agent/mcp', 'secret-read'],
    ['grep -R BEGIN ~/.ssh', 'secret-read'],
    ['grep -rl password ~', 'secret-read'],
    ['grep --recursive x ~', 'secret-read'],
    ['grep --dereference-recursive x ~', 'secret-read'],
    ['grep -d recurse x ~', 'secret-read'],
    ['egrep -ri key ~', 'secret-read'],
    ['rg --hidden token ~', 'secret-read'],
    ['rg -uu token ~', 'secret-read'],
    ['rg -. key /home/u/.agent/mcp', 'secret-read'],
    ['ag --hidden token ~', 'secret-read'],
    ['ag -u token ~', 'secret-read'],
    ['ack token ~', 'secret-read'],
    ['cat /home/u/.agent/whatsapp/auth/creds.json', 'secret-read'],
    ['tar c /home/u/.agent/mcp', 'secret-read'],
  ])
})

test('look-alikes: searching a project, one file, or without hidden files; -e takes the r', async () => {
  await assertHarmless([
    'grep -rn TODO ~/project/src',
    'grep -rn TODO .',
    'grep token ~/notes.txt',
    'grep -er ~/.ssh notes.txt',
    'rg token ~',
    'rg -u token ~',
    'ag token ~',
    'cat /home/u/.agent/mcp/tools/demo.json',
  ])
})
