// The shell-command judge as a library (pure apart from loading the tree-sitter-bash wasm once):
// parse a script with a real bash grammar, resolve its words, strip wrappers (`env`, `sudo`,
// `timeout`, `sh -c` …) and say which commands are dangerous or never allowed, with stable keys
// and descriptions. Used by the approvals guard (before a command runs) and the skills-hub scanner
// (shell lines in skill files), so both read a command the same way.

export { assessCommand, commandJudge, type Assessment, type AssessOptions, type Finding } from './detect.ts'
export { FINDINGS, type FindingKey, type FindingInfo, type Tier } from './patterns.ts'
export { parseScript, shellParser, type ParsedScript, type Redirect, type SimpleCommand, type Stdin } from './shell-parse.ts'
export { UNKNOWN, literalWord, type Word } from './words.ts'
export { unwrap, basename, type Unwrapped } from './wrappers.ts'
export type { PathContext } from './paths.ts'
