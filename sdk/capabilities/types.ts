// The shapes of the capability engine: capability files as parsed, permission manifests, problems
// found while checking them, and the questions and answers of access resolution.

/** Build targets, spelled exactly as capability files must spell them. */
export const TARGETS = ['macOS', 'windows', 'linux', 'android', 'iOS'] as const
export type Target = (typeof TARGETS)[number]

/** Any JSON value: what `allow` and `deny` lists hold (the command interprets them). */
export type ScopeValue = unknown

export interface ScopeLists {
  allow: ScopeValue[]
  deny: ScopeValue[]
}

/** A permission entry of a capability, strings normalised to `{ identifier }`. */
export interface PermissionEntry {
  identifier: string
  /** null/absent both mean "not given". */
  allow?: ScopeValue[] | null
  deny?: ScopeValue[] | null
  /** How the file wrote it: `"id"` or `{ "identifier": "id", … }`. */
  form: 'string' | 'object'
}

export interface CapabilitySource {
  file: string
  /** Position in a list form, 0-based; undefined for the single-object form. */
  index?: number
}

/** A capability object with every default applied (spec: "Capability object"). */
export interface Capability {
  identifier: string
  description: string
  /** null: only local app content. */
  remote: { urls: string[] } | null
  local: boolean
  windows: string[]
  webviews: string[]
  permissions: PermissionEntry[]
  /** null: every platform; [] : none. */
  platforms: Target[] | null
  source: CapabilitySource
}

// ---------------------------------------------------------------------------------------------
// Permission manifests

/** Where a permission or set was written: a permission file and line, or the extension that contributed it. */
export interface DefinitionSource {
  file: string
  line?: number
}

/** A single permission of a manifest: the commands it allows or denies, and an optional scope. */
export interface PermissionDefinition {
  /** The base name, e.g. `allow-open-url` (the manifest key is the prefix). */
  identifier: string
  description?: string
  commands?: { allow?: string[]; deny?: string[] }
  scope?: { allow?: ScopeValue[]; deny?: ScopeValue[] }
  platforms?: Target[] | null
  /** Absent for built-in and generated permissions. */
  source?: DefinitionSource
}

/** A named set of permissions: plain names of the same manifest, or prefixed ids of others. */
export interface PermissionSetDefinition {
  identifier: string
  description?: string
  permissions: string[]
  source?: DefinitionSource
}

/** Every permission and set of one key: `core:window`, `opener`, or the app's own commands. */
export interface Manifest {
  /** `core:window`, `opener`, or APP_MANIFEST_KEY. */
  key: string
  /** How a command of this manifest is invoked: `plugin:window|close`, or the bare app command. */
  invoke(command: string): string
  permissions: Map<string, PermissionDefinition>
  /** Includes `default` when the manifest has a default set. */
  sets: Map<string, PermissionSetDefinition>
  /** Every command the manifest knows (for listings and schema). */
  commands: string[]
  /**
   * Why a scope value cannot be used by this manifest's commands (undefined: it can). Only manifests
   * whose commands the engine knows the scope of have one (the opener); others get values as written.
   */
  scopeError?(value: ScopeValue): string | undefined
  /** Where its permissions come from: `built-in`, permission files, `extension <name>`. */
  sources?: string[]
}

// ---------------------------------------------------------------------------------------------
// Problems

export const PROBLEM_KINDS = [
  'parse',
  'missing-field',
  'invalid-platform',
  'invalid-permission-identifier',
  'duplicate-permission',
  'unknown-permission',
  'unknown-plugin',
  'duplicate-capability',
] as const
export type ProblemKind = (typeof PROBLEM_KINDS)[number]

export interface CapabilityProblem {
  kind: ProblemKind
  file: string
  /** 1-based line in the file, when known (permission files). */
  line?: number
  /** The capability's identifier, or `#<index>` when it has none. */
  capability?: string
  /** Dot/bracket path of the field inside the capability, e.g. `permissions[2].identifier`. */
  field?: string
  /** The single permission concerned, e.g. `opener:allow-open-url` (scope problems). */
  permission?: string
  /** What the field should have been. */
  expected?: string
  /** What is wrong, without the location. */
  message: string
}

/** Ignored input worth pointing out (an unknown field is often a typo: `platform` for `platforms`). */
export interface CapabilityWarning {
  file: string
  line?: number
  capability?: string
  field?: string
  message: string
}

/** One line: `file[:line]: capability "x": permission p: field: message (expected …)`. */
export function formatProblem(problem: CapabilityProblem | CapabilityWarning): string {
  const parts = [problem.line ? `${problem.file}:${problem.line}` : problem.file]
  if (problem.capability !== undefined) parts.push(`capability "${problem.capability}"`)
  if ('permission' in problem && problem.permission) parts.push(`permission ${problem.permission}`)
  if (problem.field) parts.push(problem.field)
  const expected = 'expected' in problem && problem.expected ? ` (expected ${problem.expected})` : ''
  return `${parts.join(': ')}: ${problem.message}${expected}`
}

// ---------------------------------------------------------------------------------------------
// Resolution

/** Where the calling page's content comes from. */
export type InvokeOrigin = { kind: 'local' } | { kind: 'remote'; url: string }

export interface AccessRequest {
  /** The invoke string: `plugin:<ns>|<command>` or a bare app command. */
  command: string
  window: string
  /** Defaults to the window label (a plain window has one webview of the same label). */
  webview?: string
  origin: InvokeOrigin
}

/** What granted or denied: the capability, the entry it wrote, and the single permission reached. */
export interface Grant {
  capability: string
  /** The entry as written in the capability (may be a set, e.g. `opener:default`). */
  entry: string
  /** The single permission the entry expanded to, e.g. `opener:allow-open-url`. */
  permission: string
  /** The capability's contexts and labels, for explanations. */
  local: boolean
  remote: string[]
  windows: string[]
  webviews: string[]
}

export interface AccessDecision {
  allowed: boolean
  command: string
  /** Human-readable reason (the 403 body and `explain`). */
  reason: string
  /** Matched allow entries (when allowed). */
  grants: Grant[]
  /** Deny entries found for the command (deny wins everywhere). */
  denials: Grant[]
  /** Allow entries that matched but were overridden by a deny. */
  overridden: Grant[]
  /** Allow entries for the command whose context or labels did not match. */
  nearMisses: Grant[]
  /** Command scope of the matched entries, then the manifest's global scope. */
  scopes: ScopeLists
  /** The command scope alone and the global scope alone. */
  commandScope: ScopeLists
  globalScope: ScopeLists
  /** Manifest key of the command (`opener`, `core:window`, app), if known. */
  manifest?: string
}
