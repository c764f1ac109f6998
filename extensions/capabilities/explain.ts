// `agent capabilities explain`: a decision in words — which capability and permission granted or
// denied the call, which ones almost applied and why not, and what the scope says.

import { RemoteUrlPattern, ResolvedAcl, type AccessDecision, type AccessRequest, type Capability, type Grant, type ManifestSet, type ScopeVerdict } from 'agent/sdk'

const fileOf = (capabilities: readonly Capability[], id: string) => capabilities.find((c) => c.identifier === id)?.source.file
const via = (g: Grant) => (g.entry === g.permission ? `permission ${g.permission}` : `entry "${g.entry}" → permission ${g.permission}`)
const contexts = (g: Grant) => [g.local ? 'local content' : '', ...g.remote.map((u) => `remote ${u}`)].filter(Boolean).join(', ') || 'no content at all (local: false and no remote URLs)'
const labels = (g: Grant) => {
  const parts = [g.windows.length ? `windows ${g.windows.map((w) => `"${w}"`).join(', ')}` : '', g.webviews.length ? `webviews ${g.webviews.map((w) => `"${w}"`).join(', ')}` : '']
  return parts.filter(Boolean).join(' or ') || 'no window or webview (it names neither)'
}

export interface ExplainInput {
  request: AccessRequest
  decision: AccessDecision
  acl: ResolvedAcl
  capabilities: readonly Capability[]
  manifests: ManifestSet
  scope?: { kind: 'url' | 'path'; value: string; verdict: ScopeVerdict }
}

export function explain(input: ExplainInput): string {
  const { request, decision, acl, capabilities } = input
  const webview = request.webview ?? request.window
  const origin = request.origin.kind === 'local' ? 'local app content' : `remote content ${request.origin.url}`
  const lines = [`${request.command} from window "${request.window}", webview "${webview}", ${origin}, on ${acl.platform}: ${decision.allowed ? 'ALLOWED' : 'DENIED'}`]
  const where = (g: Grant) => `capability "${g.capability}" (${fileOf(capabilities, g.capability) ?? '?'})`

  if (decision.denials.length > 0) {
    for (const g of decision.denials) lines.push(`  denied by ${where(g)}: ${via(g)}`)
    lines.push('  A deny applies to every window, webview and origin, in whichever capability it is, and wins over every allow.')
    for (const g of decision.overridden) lines.push(`  (${where(g)} would allow it through ${via(g)}, but the deny wins)`)
  } else if (decision.allowed) {
    for (const g of decision.grants) lines.push(`  granted by ${where(g)}: ${via(g)}; it applies to ${labels(g)}, for ${contexts(g)}`)
  } else if (!decision.manifest) {
    lines.push(`  ${decision.reason}`)
  } else if (decision.nearMisses.length === 0) {
    lines.push(`  ${decision.reason.replace(/^\S+ not allowed: /, '')}`)
  } else {
    for (const g of decision.nearMisses) {
      const url = request.origin.kind === 'remote' ? request.origin.url : undefined
      const originOk = url === undefined ? g.local : g.remote.some((u) => new RemoteUrlPattern(u).test(url))
      lines.push(`  ${where(g)} grants it through ${via(g)}, but only to ${labels(g)}, for ${contexts(g)}${originOk ? '' : ` — not for ${origin}`}`)
    }
  }

  // Capabilities switched off on this platform that would have decided otherwise.
  if (acl.inactive.length > 0) {
    const elsewhere = new ResolvedAcl(acl.inactive.map((c) => ({ ...c, platforms: null })), { platform: acl.platform, manifests: input.manifests }).check(request)
    for (const g of [...elsewhere.grants, ...elsewhere.denials]) {
      const capability = acl.inactive.find((c) => c.identifier === g.capability)
      lines.push(`  (${where(g)} would ${elsewhere.denials.includes(g) ? 'deny' : 'allow'} it, but is only active on ${capability?.platforms?.join(', ') || 'no platform'})`)
    }
  }

  if (decision.allowed) {
    const { commandScope, globalScope } = decision
    if (commandScope.allow.length || commandScope.deny.length) lines.push(`  scope of the matching capabilities: allow ${JSON.stringify(commandScope.allow)}, deny ${JSON.stringify(commandScope.deny)}`)
    if (globalScope.allow.length || globalScope.deny.length) lines.push(`  global scope of ${decision.manifest}: allow ${JSON.stringify(globalScope.allow)}, deny ${JSON.stringify(globalScope.deny)}`)
  }
  if (input.scope) {
    const { kind, value, verdict } = input.scope
    lines.push(`  ${kind} ${value}: ${decision.allowed ? (verdict.allowed ? `in scope (${verdict.reason})` : `out of scope (${verdict.reason})`) : 'not checked, the command itself is denied'}`)
  }
  return lines.join('\n')
}
