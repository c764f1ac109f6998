// cp / mv / install / ln with a target directory (`-t DIR` in every spelling) writing into protected
// places; mv -t moving a system directory away. String literals only: nothing here is run.

import { test } from 'node:test'
import { assertFlagged, assertHarmless } from './cases.ts'

test('-t DIR in its short, attached, clustered, long and abbreviated forms', async () => {
  await assertFlagged([
    ['cp -t ~/.ssh authorized_keys', 'credential-files'],
    ['cp -t/etc/cron.d job', 'system-config-write'],
    ['cp -vt /etc/cron.d job', 'system-config-write'],
    ['cp -rvt/etc/cron.d job', 'system-config-write'],
    ['cp --target-directory=/etc/cron.d job', 'system-config-write'],
    ['cp --target-directory /etc/cron.d job', 'system-config-write'],
    ['cp --target=/etc/cron.d job', 'system-config-write'],
    ['cp --targ /etc/cron.d job', 'system-config-write'],
    ['mv -t ~/.ssh authorized_keys', 'credential-files'],
    ['mv --target-directory=/home/u/.agent config.yaml', 'agent-config'],
    ['install -t /etc/sudoers.d rule', 'system-config-write'],
    ['install -m 644 -t /etc/sudoers.d rule', 'system-config-write'],
    ['ln -t ~/.ssh keyfile', 'credential-files'],
    ['ln -st ~/.ssh keyfile', 'credential-files'],
    ['sudo cp -t /etc/cron.d job', 'system-config-write'],
    ['find . -name job | xargs cp -t /etc/cron.d', 'system-config-write'],
    // The sources of a `mv -t` move away: moving a system directory is as bad as deleting it.
    ['mv -t /tmp /usr', 'rm-system-dir'],
    ['mv --target-directory=/tmp ~', 'rm-home'],
  ])
})

test('-t DIR into ordinary places, and options that only look like it', async () => {
  await assertHarmless([
    'cp -t /tmp a b',
    'cp -t dist/ build/app.js',
    'mv -t archive old.log',
    'install -t /tmp/bin tool',
    'ln -st bin ../tool',
    // rsync's -t keeps times: the destination is still the last operand.
    'rsync -avt src/ backup/',
    'rsync -t a.txt b.txt',
  ])
})
