// Cloud, cluster, container and database CLIs that destroy what they manage: infrastructure torn
// down (`terraform destroy`, `pulumi destroy`, `kubectl delete`, `helm uninstall`, `aws … delete-*`,
// `gcloud … delete`, `az … delete`), data stores emptied (SQL DROP/TRUNCATE/DELETE, `FLUSHALL`,
// mongo `dropDatabase()`, `dropdb`) and containers and their volumes removed.

import { getopt, hasOption, type Getopt, type Judge, type Rule } from './judge.ts'
import { DB_CLIENTS, SQL_PATTERNS, type FindingKey } from './patterns.ts'
import type { SimpleCommand } from './shell-parse.ts'
import { basename } from './wrappers.ts'
import type { Word } from './words.ts'

/** A Go-style boolean flag given as on (`-auto-approve`, `--auto-approve=true`). */
const flagOn = (argv: Word[], name: string) => argv.some((w) => new RegExp(`^--?${name}(?:=(?:true|t|1))?$`, 'i').test(w.value))

/** terraform / tofu: `destroy`, or `apply` that destroys or skips the confirmation; terragrunt also `run-all destroy`. */
const terraform: Rule = (argv, j) => {
  const verbs = argv.slice(1).filter((w) => !w.value.startsWith('-')).map((w) => w.value)
  const subs = verbs.slice(0, basename(argv[0]!.value) === 'terragrunt' ? 3 : 1)
  if (subs.includes('destroy') || (subs.includes('apply') && (flagOn(argv, 'destroy') || flagOn(argv, 'auto-approve')))) j.emit('infra-destroy')
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

/** `kubectl delete …`, unless it names single pods (which their controllers recreate). */
const kubectl: Rule = (argv, j) => {
  const { read, verbs } = verbsOf(argv, KUBECTL)
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
const byVerbs = (spec: Getopt, hit: (verbs: string[]) => boolean): Rule => (argv, j) => hit(verbsOf(argv, spec).verbs) && j.emit('infra-destroy')

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
