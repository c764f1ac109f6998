// Cloud, cluster, container and database CLIs that destroy what they manage: infrastructure torn
// down (`terraform destroy`, `pulumi destroy`, `kubectl delete|drain`, `helm uninstall`, `aws …
// delete-*`, `gcloud … delete`, `az … delete`, and the smaller clouds and hosting platforms: doctl,
// hcloud, linode-cli, oci, fly, heroku, vercel, netlify, firebase, supabase), data stores emptied (SQL
// DROP/TRUNCATE/DELETE, `FLUSHALL`, mongo `dropDatabase()`, `dropdb`) and containers and their
// volumes removed. Frameworks' database resets (`prisma migrate reset`, `rails db:drop` …) are in
// infra-frameworks.ts.

import { getopt, hasOption, type Getopt, type Judge, type Options, type Rule } from './judge.ts'
import { DB_CLIENTS, SQL_PATTERNS, type FindingKey } from './patterns.ts'
import type { SimpleCommand } from './shell-parse.ts'
import { basename } from './wrappers.ts'
import type { Word } from './words.ts'

/** A Go-style boolean flag given as on (`-auto-approve`, `--auto-approve=true`). */
const flagOn = (argv: Word[], name: string) => argv.some((w) => new RegExp(`^--?${name}(?:=(?:true|t|1))?$`, 'i').test(w.value))

/** terraform / tofu options of `apply` that take the next word (Go's flag package reads `-var x=1` as `-var=x=1`). */
const TF_VALUES = /^--?(?:var|var-file|target|replace|exclude|parallelism|lock-timeout|state|state-out|backup)$/

/** Whether `apply` is given an operand: a saved plan, which applies without asking (and a plan may destroy). */
function appliesPlan(args: Word[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!.value
    if (w === '--') return i + 1 < args.length
    if (!w.startsWith('-') || w === '-') return true
    if (TF_VALUES.test(w)) i++
  }
  return false
}

/** terraform / tofu: `destroy`, or `apply` that destroys or skips the confirmation (a flag or a plan file); terragrunt also `run-all destroy`. */
const terraform: Rule = (argv, j) => {
  const verbs = argv.slice(1).filter((w) => !w.value.startsWith('-')).map((w) => w.value)
  const subs = verbs.slice(0, basename(argv[0]!.value) === 'terragrunt' ? 3 : 1)
  const apply = subs.includes('apply') ? argv.findIndex((w, i) => i > 0 && w.value === 'apply') : -1
  const unconfirmed = apply > 0 && (flagOn(argv, 'destroy') || flagOn(argv, 'auto-approve') || appliesPlan(argv.slice(apply + 1)))
  if (subs.includes('destroy') || unconfirmed) j.emit('infra-destroy')
}

const PULUMI: Getopt = { arg: 'Csvm', long: ['cwd', 'stack', 'color', 'config-file', 'tracing', 'verbose', 'target', 'message', 'parallel', 'secrets-provider'] }
const KUBECTL: Getopt = { arg: 'nlsfko', long: ['namespace', 'selector', 'server', 'filename', 'kustomize', 'output', 'context', 'cluster', 'user', 'kubeconfig', 'token', 'field-selector', 'grace-period', 'timeout', 'as', 'as-group', 'request-timeout', 'certificate-authority', 'client-certificate', 'client-key', 'tls-server-name', 'cache-dir', 'profile', 'username', 'password'] }
const HELM: Getopt = { arg: 'n', long: ['namespace', 'kube-context', 'kubeconfig', 'kube-apiserver', 'kube-as-user', 'kube-as-group', 'kube-token', 'kube-ca-file', 'registry-config', 'repository-cache', 'repository-config', 'burst-limit', 'qps', 'timeout', 'cascade'] }
const AWS: Getopt = { long: ['profile', 'region', 'output', 'endpoint-url', 'query', 'ca-bundle', 'cli-read-timeout', 'cli-connect-timeout', 'color', 'cli-binary-format'] }
const DOCKER: Getopt = { arg: 'Hcl', long: ['host', 'context', 'config', 'log-level', 'tlscacert', 'tlscert', 'tlskey'] }
const COMPOSE: Getopt = { arg: 'fp', long: ['file', 'project-name', 'project-directory', 'env-file', 'profile', 'ansi', 'progress', 'parallel', 'timeout', 'rmi'] }

const verbsOf = (argv: Word[], spec: Getopt) => {
  const read = getopt(argv, spec)
  return { read, verbs: read.operands.map((w) => w.value) }
}

/** pulumi: `destroy`, `stack rm`, or `up --yes` (applies whatever the program now says, unconfirmed). */
const pulumi: Rule = (argv, j) => {
  const { read, verbs } = verbsOf(argv, PULUMI)
  const [sub = '', verb = ''] = verbs
  if (/^(?:destroy|down|dn)$/.test(sub) || (sub === 'stack' && /^(?:rm|remove)$/.test(verb)) || (/^(?:up|update)$/.test(sub) && hasOption(read, 'y', 'yes'))) j.emit('infra-destroy')
}

/** `kubectl delete …`, unless it names single pods (which their controllers recreate); `kubectl drain` (evicts every pod of a node). */
const kubectl: Rule = (argv, j) => {
  const { read, verbs } = verbsOf(argv, KUBECTL)
  if (verbs[0] === 'drain') return j.emit('infra-destroy')
  if (verbs[0] !== 'delete') return
  const [first = '', ...more] = verbs.slice(1)
  const named = first.includes('/') || more.length > 0
  const kinds = first.includes('/') ? verbs.slice(1).map((v) => v.split('/')[0]!) : first.split(',')
  const broad = hasOption(read, 'all', 'all-namespaces', 'A', 'l', 'selector', 'field-selector', 'f', 'filename', 'k', 'kustomize')
  if (broad || !named || !kinds.every((k) => /^(?:po|pods?)$/i.test(k))) j.emit('infra-destroy')
}

const aws: Rule = (argv, j) => {
  const { read, verbs } = verbsOf(argv, AWS)
  const [service, op = ''] = verbs
  if (hasOption(read, 'dryrun', 'dry-run')) return
  const s3 = service === 's3' && ((op === 'rm' && hasOption(read, 'recursive')) || (op === 'rb' && hasOption(read, 'force')))
  if (s3 || /^(?:delete|terminate|purge|batch-delete)-/.test(op)) j.emit('infra-destroy')
}

/** docker / podman / nerdctl (global options skipped): containers stopped or removed, and volumes with them. */
const container: Rule = (argv, j) => {
  const { read, verbs } = verbsOf(argv, DOCKER)
  const [a = '', b = ''] = verbs
  if (a === 'compose') return compose(argv.slice(argv.findIndex((w, i) => i > 0 && w.value === 'compose')), j)
  if (/^(?:rm|rmi|stop|kill|restart)$/.test(a) || (/^(?:container|image|network|volume|system)$/.test(a) && /^(?:rm|remove|stop|kill|restart|prune)$/.test(b))) j.emit('container-destructive')
  if ((a === 'volume' && /^(?:rm|remove|prune)$/.test(b)) || (a === 'system' && b === 'prune' && hasOption(read, 'a', 'all', 'volumes'))) j.emit('infra-destroy')
}

/** `docker compose down` (`-v`: with its volumes). */
const compose = (argv: Word[], j: Judge): void => {
  const read = getopt(argv, COMPOSE)
  if (read.operands[0]?.value !== 'down') return
  j.emit('container-destructive')
  if (hasOption(read, 'v', 'volumes')) j.emit('infra-destroy')
}

const some = (pattern: RegExp) => (verbs: string[]) => verbs.some((v) => pattern.test(v))
const byVerbs = (spec: Getopt, hit: (verbs: string[], read: Options) => boolean): Rule => (argv, j) => {
  const { read, verbs } = verbsOf(argv, spec)
  if (hit(verbs, read)) j.emit('infra-destroy')
}
/** A command of a CLI with `topic:command` names (`heroku apps:destroy`), also given as two words (`apps destroy`). */
const topic = (pattern: RegExp) => ([a = '', b = '']: string[]) => pattern.test(a) || pattern.test(`${a}:${b}`)

/**
 * Smaller clouds and hosting platforms (verbs from each CLI's reference): doctl's `delete` and its
 * aliases `d|del|rm`, `delete-*`; hcloud `delete`; linode-cli `delete`, `*-delete`; oci `delete`,
 * `bulk-delete`, `terminate`; `rebuild` (doctl, hcloud, linode) reinstalls a server over its disk.
 */
const PLATFORMS: Record<string, Rule> = {
  doctl: byVerbs({ arg: 'tuco', long: ['access-token', 'api-url', 'config', 'context', 'output', 'format', 'http-retry-max', 'http-retry-wait-max', 'http-retry-wait-min'] }, some(/^(?:delete(?:-[\w-]+)?|del|d|rm|rebuild)$/)),
  hcloud: byVerbs({ arg: 'o', long: ['config', 'context', 'endpoint', 'poll-interval', 'debug-file', 'output'] }, some(/^(?:delete|rebuild)$/)),
  'linode-cli': byVerbs({ long: ['as-user', 'format', 'page', 'page-size'] }, some(/^(?:[a-z]+-)*delete$|^rebuild$/)),
  oci: byVerbs({ long: ['profile', 'config-file', 'region', 'endpoint', 'auth', 'output', 'query'] }, some(/^(?:bulk-)?delete$|^terminate$/)),
  // `fly apps destroy` (also `fly destroy`), `fly machine|volumes destroy|rm`, `fly apps delete` …
  fly: byVerbs({ arg: 'actr', long: ['app', 'config', 'access-token', 'region'] }, (verbs) => verbs.slice(0, 2).some((v) => /^(?:destroy|delete|remove|rm)$/.test(v))),
  heroku: byVerbs({ arg: 'acr', long: ['app', 'confirm', 'remote'] }, topic(/^(?:destroy|apps:(?:destroy|delete)|addons:(?:destroy|remove|delete)|pg:reset|pipelines:destroy|spaces:destroy)$/)),
  // `vercel remove|rm PROJECT` removes every deployment of a project, `vercel project rm` the project.
  vercel: byVerbs({ arg: 'tSTAQ', long: ['token', 'scope', 'team', 'local-config', 'global-config', 'cwd'] }, ([a = '', b = '']) => /^(?:remove|rm)$/.test(a) || (/^projects?$/.test(a) && /^(?:remove|rm)$/.test(b))),
  netlify: byVerbs({ long: ['auth', 'filter'] }, topic(/^sites:delete$/)),
  // Firestore: a whole collection tree (`-r`) or every collection; Realtime Database: `database:remove` of any path.
  firebase: byVerbs({ arg: 'P', long: ['project', 'token', 'account', 'config', 'database', 'instance'] }, (verbs, read) => topic(/^(?:database:remove|firestore:databases:delete)$/)(verbs) || (topic(/^firestore:delete$/)(verbs) && hasOption(read, 'r', 'recursive', 'all-collections'))),
  // `supabase db reset` (the local database, or the linked project's with `--linked`), `stop --no-backup` deletes the local volumes.
  supabase: byVerbs({ arg: 'o', long: ['workdir', 'db-url', 'project-ref', 'profile', 'output', 'version'] }, ([a = '', b = ''], read) => (a === 'db' && b === 'reset') || (a === 'projects' && b === 'delete') || (a === 'stop' && hasOption(read, 'no-backup'))),
}

/** Rules of the infrastructure and database CLIs (part of the table in rules.ts). */
export const INFRA: Record<string, Rule> = {
  terraform,
  tofu: terraform,
  terragrunt: terraform,
  pulumi,
  kubectl,
  helm: byVerbs(HELM, ([sub = '']) => /^(?:uninstall|un|delete|del)$/.test(sub)),
  aws,
  gcloud: (argv, j) => (argv.some((w) => w.value === 'delete') || (argv.some((w) => w.value === 'rm') && hasOption(getopt(argv, {}), 'r', 'recursive'))) && j.emit('infra-destroy'),
  gsutil: (argv, j) => {
    const { read, verbs } = verbsOf(argv, { arg: 'ohu' })
    if (verbs[0] === 'rb' || (verbs[0] === 'rm' && hasOption(read, 'r', 'R', 'a'))) j.emit('infra-destroy')
  },
  az: byVerbs({}, some(/^(?:delete|delete-batch|purge)$/)),
  dropdb: (_, j) => j.emit('infra-destroy'),
  mysqladmin: byVerbs({ arg: 'hPSuOcip', long: ['host', 'port', 'socket', 'user', 'password'] }, some(/^drop$/i)),
  docker: container,
  podman: container,
  nerdctl: container,
  'docker-compose': compose,
  ...PLATFORMS,
  linode: PLATFORMS['linode-cli']!,
  flyctl: PLATFORMS.fly!,
}

/** Data stores' clients, and what destroys their data in the text they are given. */
const DATA_STORES: Array<{ clients: ReadonlySet<string>; patterns: ReadonlyArray<{ key: FindingKey; pattern: RegExp }> }> = [
  { clients: DB_CLIENTS, patterns: SQL_PATTERNS },
  { clients: new Set(['redis-cli', 'valkey-cli', 'keydb-cli']), patterns: [{ key: 'infra-destroy', pattern: /\bflush(?:all|db)\b/i }] },
  { clients: new Set(['mongo', 'mongosh']), patterns: [{ key: 'infra-destroy', pattern: /\.dropDatabase\s*\(|\.drop\s*\(\s*\)|\.(?:deleteMany|remove)\s*\(\s*\{\s*\}\s*\)/ }] },
]

/**
 * What destroys data, when the script runs a data store's client anywhere (`psql -c …`, `docker exec
 * db psql …`, `echo FLUSHALL | redis-cli`, `mongosh <<E …`): every word and heredoc of the script is read.
 */
export function dataFindings(commands: SimpleCommand[]): FindingKey[] {
  const texts = commands.flatMap((c) => [...c.words.map((w) => w.value), ...(c.stdin?.kind === 'text' ? [c.stdin.text.value] : [])])
  return DATA_STORES.filter(({ clients }) => commands.some((c) => c.words.some((w) => clients.has(basename(w.value)))))
    .flatMap(({ patterns }) => patterns.filter(({ pattern }) => texts.some((t) => pattern.test(t))).map(({ key }) => key))
}
