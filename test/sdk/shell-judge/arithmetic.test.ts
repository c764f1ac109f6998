// Arithmetic assignments make a variable unknown, like `read` does: `(( x = … ))`, `let x=…`,
// `$(( x = … ))`, `$[ … ]`, C-style `for`, `declare -i`. Comparisons do not. Nothing here is run.

import { test } from 'node:test'
import { assertFlagged, assertHarmless } from './cases.ts'

test('a variable assigned by arithmetic is not its earlier literal value', async () => {
  await assertFlagged([
    ['x=ls; ((x = 1)); $x -rf ~', 'dynamic-command'],
    ['x=ls; (( x += 2 )); $x', 'dynamic-command'],
    ['x=ls; ((x++)); $x', 'dynamic-command'],
    ['x=ls; ((--x)); $x', 'dynamic-command'],
    ['x=ls; ((y = x <<= 1)); $x', 'dynamic-command'],
    ['x=ls; let x=1; $x -rf ~', 'dynamic-command'],
    ["x=ls; let 'x = 1' y=2; $x", 'dynamic-command'],
    ['x=ls; let x++; $x', 'dynamic-command'],
    ['x=ls; : $((x = 1)); $x -rf ~', 'dynamic-command'],
    ['x=ls; echo $[x = 1]; $x', 'dynamic-command'],
    ['x=ls; echo "$((x = 1))"; $x', 'dynamic-command'],
    ['x=ls; if ((x = 0)); then :; fi; $x', 'dynamic-command'],
    ['a=ls; ((a[0] = 1)); $a', 'dynamic-command'],
    ['x=ls; declare -i x; $x', 'dynamic-command'],
    // The unknown value may be empty as far as the judge knows: `~/$d` may be the home.
    ['d=build; ((d++)); rm -r ~/"$d"', 'rm-home'],
    ['for ((i = 0; i < 3; i++)); do rm -r ~/"$i"; done', 'rm-home'],
    // A name only known at run time: every variable is unknown.
    ['x=ls; let "$n=1"; $x', 'dynamic-command'],
    ['x=ls; (( $n = 1 )); $x', 'dynamic-command'],
  ])
})

test('comparisons and other variables leave a known value known', async () => {
  await assertHarmless([
    'x=ls; ((y = 1)); $x -l',
    'x=ls; if ((x == 1)); then :; fi; $x -l',
    'x=ls; (( x >= 1 && x != 2 )); $x -l',
    'x=ls; let y=x+1; $x -l',
    'a=ls; [[ $a = b ]]; $a -l',
    'x=ls; { y=1; }; $x -l',
    '((n = 1)); echo $n',
    'let n=n+1',
    'for ((i = 0; i < 3; i++)); do echo $i; done',
    'd=build; ((e = 1)); rm "$d"',
  ])
})
