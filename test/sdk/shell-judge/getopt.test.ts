// The option reader the rules share (judge.ts `getopt`) and the awk program reader (awk-tokens.ts).

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { awkEffects } from '../../../sdk/shell-judge/awk-tokens.ts'
import { getopt, hasOption, valuesOf } from '../../../sdk/shell-judge/judge.ts'
import { literalWord } from '../../../sdk/shell-judge/index.ts'

const words = (...values: string[]) => values.map(literalWord)
const CP = { arg: 'St', long: ['suffix', 'target-directory'] }

test('getopt: clusters, attached values, long options by a prefix only they have, --', () => {
  for (const argv of [['cp', '-t', 'D', 'a'], ['cp', '-tD', 'a'], ['cp', '-vt', 'D', 'a'], ['cp', '-rvtD', 'a'], ['cp', '--target-directory=D', 'a'], ['cp', '--targ', 'D', 'a'], ['cp', 'a', '-t', 'D']]) {
    const read = getopt(words(...argv), CP)
    assert.deepEqual(valuesOf(read, 't', 'target-directory').map((w) => w.value), ['D'], argv.join(' '))
    assert.deepEqual(read.operands.map((w) => w.value), ['a'], argv.join(' '))
  }
  assert.deepEqual(getopt(words('cp', '--', '-t', 'x'), CP).operands.map((w) => w.value), ['-t', 'x'])
  // An optional value is only ever attached (`sed -i.bak`, not `sed -i FILE`).
  const sed = getopt(words('sed', '-i', 's/a/b/', 'f'), { arg: 'e', optional: 'i' })
  assert.deepEqual(sed.operands.map((w) => w.value), ['s/a/b/', 'f'])
  assert.equal(valuesOf(getopt(words('sed', '-i.bak', 'x'), { optional: 'i' }), 'i')[0]?.value, '.bak')
  // posix: options end at the first operand.
  assert.deepEqual(getopt(words('awk', '{print}', '-f', 'x'), { arg: 'f', posix: true }).operands.map((w) => w.value), ['{print}', '-f', 'x'])
  assert.ok(hasOption(getopt(words('aws', 's3', 'rm', '--rec'), {}), 'recursive'))
})

test('awk effects: strings, regexes and comments are not operators', () => {
  assert.deepEqual(awkEffects('BEGIN { system("rm -rf x") }').commands, [{ text: 'rm -rf x', piped: false }])
  assert.deepEqual(awkEffects('{ system("rm " $1) }').commands, [{ text: undefined, piped: false }])
  assert.deepEqual(awkEffects('{ print | "sort -u" }').commands, [{ text: 'sort -u', piped: true }])
  assert.deepEqual(awkEffects('{ "date" | getline d }').commands, [{ text: 'date', piped: false }])
  assert.deepEqual(awkEffects('{ print $1 > "out.txt"; print $2 >> "/tmp/b" }').writes, ['out.txt', '/tmp/b'])
  assert.deepEqual(awkEffects('{ getline line < "/etc/hosts" }').reads, ['/etc/hosts'])
  assert.deepEqual(awkEffects('/a|b/ { print "x|y" } # | "sh"'), { commands: [], writes: [], reads: [] })
  assert.deepEqual(awkEffects('{ print ($1 > 2) } $3 > 4 { n++ }'), { commands: [], writes: [], reads: [] })
  assert.deepEqual(awkEffects('{ print > "/tmp/" $1 }').writes, [])
  assert.deepEqual(awkEffects('{ x = $1 / 2; y = 4 / 2 } /re/ { print "a\\"b" > "f" }').writes, ['f'])
})
