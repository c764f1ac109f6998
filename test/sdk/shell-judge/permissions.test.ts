// Permission and ownership changes: set-user-ID/set-group-ID bits, world-writable modes, and changes
// of the root, system paths and homes. String literals only: nothing here is run.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { makesExecutable, setsId, worldWritable } from '../../../sdk/shell-judge/permissions.ts'
import { assertFlagged, assertHarmless } from './cases.ts'

test('modes: numeric (any number of digits) and symbolic', () => {
  for (const mode of ['4755', '2755', '6711', '04755', 'u+s', 'g+s', '+s', 'a+s', 'u=rwxs', 'go-w,u+s']) assert.ok(setsId(mode), mode)
  for (const mode of ['755', '0755', '1777', '+x', 'u-s', 'o+s', 'a+t']) assert.ok(!setsId(mode), mode)
  for (const mode of ['777', '00777', '77', '2', 'o+w', 'a=rw', 'ugo+rwx', 'u+x,o+w']) assert.ok(worldWritable(mode), mode)
  for (const mode of ['755', '644', '+w', 'u+w', 'go-w', 'o-w']) assert.ok(!worldWritable(mode), mode)
  for (const mode of ['755', '100', '+x', 'u=rwx', 'a+rx']) assert.ok(makesExecutable(mode), mode)
  for (const mode of ['644', '4644', '-x', 'u-x', 'a+rw']) assert.ok(!makesExecutable(mode), mode)
})

test('setuid and setgid bits need approval (chmod, install -m, through wrappers)', async () => {
  await assertFlagged([
    ['chmod u+s /tmp/shell', 'setuid'],
    ['chmod 4755 ./tool', 'setuid'],
    ['chmod +s tool', 'setuid'],
    ['chmod g+s tool', 'setuid'],
    ['sudo chmod 06755 tool', 'setuid'],
    ['install -m 4755 tool /tmp/tool', 'setuid'],
    ['install --mode=u+s tool /tmp/tool', 'setuid'],
    ['mkdir -m 777 shared', 'world-writable'],
    ['chmod 00777 data', 'world-writable'],
  ])
})

test('the root, system paths and homes', async () => {
  await assertFlagged([
    ['chmod 000 /', 'chmod-root'],
    ['chmod -R 777 /', 'chmod-root'],
    ['chmod -R 777 /usr', 'chmod-root'],
    ['chown -R nobody /', 'chmod-root'],
    ['chown -R nobody /etc', 'chmod-root'],
    ['chmod 000 /etc', 'system-permissions'],
    ['chmod 700 /usr/bin', 'system-permissions'],
    ['chmod 644 /etc/shadow', 'system-permissions'],
    ['chown nobody /etc/sudoers', 'system-permissions'],
    ['chgrp users /etc/passwd', 'system-permissions'],
    ['chmod 666 /dev/sda', 'system-permissions'],
    ['chmod 000 ~', 'system-permissions'],
    ['cd /etc && chmod 600 passwd', 'system-permissions'],
  ])
  await assertHarmless(['chmod +x script.sh', 'chmod 644 file', 'chmod 755 ./bin/tool', 'chmod -R u+w build', 'chmod 600 ~/.ssh/id_ed25519', 'chmod 700 ~/.ssh', 'chown -h me link', 'mkdir -m 755 out', 'install -m 755 tool /tmp/tool', 'chmod u-s tool'])
})
