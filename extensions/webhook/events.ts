// The event type of a webhook delivery, taken only from what the scheme lets us trust. Event headers
// are never signed (GitHub and GitLab sign or authenticate the body, not the headers; the generic
// scheme signs "<timestamp>.<body>"), so a claimed header is checked against the payload's own shape
// (the intake refuses a mismatch where the event would pass a route's filter), and the generic scheme
// reads the event from the payload only.

import type { SignatureScheme } from './signature.ts'

type Payload = Record<string, unknown>
export type HeaderGetter = (name: string) => string

export interface ResolvedEvent {
  event: string
  /** Every name a route filter may match: the event first, then aliases such as GitLab's object_kind. */
  names: string[]
  /** Set when the claimed header contradicts the payload: what the payload's shape says instead. */
  mismatch?: string
}

const isObject = (v: unknown): v is Payload => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (p: Payload, key: string) => typeof p[key] === 'string'
const obj = (p: Payload, key: string) => isObject(p[key])

/**
 * GitHub events told apart by their payload alone, most specific first (a deployment_status payload
 * also carries a deployment, a review one a pull_request, …). Undefined: no shape we know.
 */
const GITHUB_SHAPES: ReadonlyArray<readonly [event: string, test: (p: Payload) => boolean]> = [
  ['deployment_protection_rule', (p) => str(p, 'deployment_callback_url')],
  ['deployment_status', (p) => obj(p, 'deployment_status')],
  ['deployment_review', (p) => obj(p, 'workflow_run') && ('approver' in p || 'reviewers' in p || 'workflow_job_runs' in p)],
  ['workflow_job', (p) => obj(p, 'workflow_job')],
  ['deployment', (p) => obj(p, 'deployment')],
  ['workflow_run', (p) => obj(p, 'workflow_run')],
  ['check_run', (p) => obj(p, 'check_run')],
  ['check_suite', (p) => obj(p, 'check_suite')],
  ['pull_request_review', (p) => obj(p, 'pull_request') && obj(p, 'review')],
  ['pull_request_review_thread', (p) => obj(p, 'pull_request') && obj(p, 'thread')],
  ['pull_request_review_comment', (p) => obj(p, 'pull_request') && obj(p, 'comment')],
  ['pull_request', (p) => obj(p, 'pull_request')],
  ['issue_comment', (p) => obj(p, 'issue') && obj(p, 'comment')],
  ['issues', (p) => obj(p, 'issue')],
  ['discussion_comment', (p) => obj(p, 'discussion') && obj(p, 'comment')],
  ['discussion', (p) => obj(p, 'discussion')],
  ['commit_comment', (p) => obj(p, 'comment')],
  ['release', (p) => obj(p, 'release')],
  ['fork', (p) => obj(p, 'forkee')],
  ['gollum', (p) => Array.isArray(p.pages)],
  ['push', (p) => str(p, 'ref') && str(p, 'before') && str(p, 'after') && Array.isArray(p.commits)],
  ['create', (p) => str(p, 'ref') && str(p, 'ref_type') && 'master_branch' in p],
  ['delete', (p) => str(p, 'ref') && str(p, 'ref_type')],
  ['status', (p) => str(p, 'sha') && str(p, 'state') && str(p, 'context')],
  ['ping', (p) => str(p, 'zen')],
]
export const GITHUB_VERIFIED_EVENTS: readonly string[] = GITHUB_SHAPES.map(([event]) => event)

/** The GitHub event a payload's shape says it is, if it is one we know. */
export function githubShape(payload: unknown): string | undefined {
  if (!isObject(payload)) return undefined
  return GITHUB_SHAPES.find(([, test]) => test(payload))?.[0]
}

/** X-Gitlab-Event → the payload's object_kind for that hook. */
const GITLAB_KINDS: Readonly<Record<string, string>> = {
  'Push Hook': 'push',
  'Tag Push Hook': 'tag_push',
  'Issue Hook': 'issue',
  'Confidential Issue Hook': 'issue',
  'Note Hook': 'note',
  'Confidential Note Hook': 'note',
  'Merge Request Hook': 'merge_request',
  'Wiki Page Hook': 'wiki_page',
  'Pipeline Hook': 'pipeline',
  'Job Hook': 'build',
  'Deployment Hook': 'deployment',
  'Release Hook': 'release',
  'Milestone Hook': 'milestone',
  'Feature Flag Hook': 'feature_flag',
  'Emoji Hook': 'emoji',
  'Resource Access Token Hook': 'access_token',
  'Vulnerability Hook': 'vulnerability',
}
const GITLAB_KNOWN_KINDS = new Set(Object.values(GITLAB_KINDS))

/** The event the payload names for itself (signed wherever the body is). */
function payloadEvent(payload: unknown, keys: readonly string[]): string | undefined {
  if (!isObject(payload)) return undefined
  for (const key of keys) if (typeof payload[key] === 'string' && payload[key]) return payload[key] as string
  return undefined
}

const named = (event: string): ResolvedEvent => ({ event, names: [event] })

/**
 * The event of a delivery verified under `scheme`. A claimed header must match the payload's shape,
 * and a payload of a known shape must come under its own name; otherwise `mismatch` says what the
 * payload looks like.
 */
export function resolveEvent(scheme: SignatureScheme, header: HeaderGetter, payload: unknown): ResolvedEvent {
  if (scheme === 'generic') return named(payloadEvent(payload, ['event_type', 'type']) ?? 'unknown')
  if (scheme === 'github') {
    const claimed = header('x-github-event').trim()
    if (!claimed) return named(payloadEvent(payload, ['event_type', 'type']) ?? 'unknown')
    const shape = githubShape(payload)
    const agrees = GITHUB_VERIFIED_EVENTS.includes(claimed) ? shape === claimed : shape === undefined
    return agrees ? named(claimed) : { ...named(claimed), mismatch: shape ?? 'unrecognised' }
  }
  const claimed = header('x-gitlab-event').trim()
  const kind = payloadEvent(payload, ['object_kind'])
  // The header's own kind is a name too: a filter on `push` must see a claimed "Push Hook" (and refuse it if the payload disagrees).
  const names = [...new Set([claimed, GITLAB_KINDS[claimed], kind, payloadEvent(payload, ['event_name']), payloadEvent(payload, ['event_type'])].filter((n): n is string => Boolean(n)))]
  const resolved: ResolvedEvent = { event: names[0] ?? 'unknown', names: names.length > 0 ? names : ['unknown'] }
  if (claimed && claimed !== 'System Hook') {
    const expected = GITLAB_KINDS[claimed]
    if (expected ? kind !== expected : kind !== undefined && GITLAB_KNOWN_KINDS.has(kind)) resolved.mismatch = kind ?? 'unrecognised'
  }
  return resolved
}
