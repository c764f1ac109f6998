// Application frameworks' and migration tools' commands that drop or wipe a database (`infra-destroy`):
// `prisma migrate reset`, `rails db:drop`, `manage.py flush`, `mix ecto.reset`, `artisan migrate:fresh`
// … A coding agent runs these every day, and the database they empty is not always a scratch one.
// Also an interpreter running a framework's script (`python manage.py flush`, `php artisan
// db:wipe`); the language runners they are run through (`bundle exec`, `poetry run`) are runners.ts's.
// Part of the rule table in rules.ts, as infra.ts is.

import { getopt, hasOption, type Getopt, type Judge, type Rule } from './judge.ts'
import { basename } from './wrappers.ts'
import type { Word } from './words.ts'

/** A rule on a tool's operands (options read with `spec`) and options. */
const when = (hit: (verbs: string[], argv: Word[]) => boolean, spec: Getopt = {}): Rule => (argv, j) => {
  const read = getopt(argv, spec)
  if (hit(read.operands.map((w) => w.value), argv)) j.emit('infra-destroy')
}
const anyVerb = (pattern: RegExp, spec?: Getopt): Rule => when((verbs) => verbs.some((v) => pattern.test(v)), spec)
const has = (argv: Word[], ...names: string[]) => hasOption(getopt(argv, {}), ...names)

/** Rails tasks that drop the database or load the schema over it (`db:setup` on an existing one too); with `:all` or a database name after. */
const RAILS = /^db:(?:drop|purge|reset|truncate_all|setup|schema:load|structure:load|migrate:reset|seed:replant)(?::\w+)*$/
/** `migrate APP zero` unapplies every migration of APP (its tables are dropped). */
const django = when(([command = '', app = '', target = '']) => /^(?:flush|reset_db)$/.test(command) || (command === 'migrate' && (app === 'zero' || target === 'zero')), { arg: 'v', long: ['settings', 'pythonpath', 'database', 'verbosity'] })
const DOTNET_EF = /^database (?:drop|update 0)(?: |$)/
const EF: Getopt = { arg: 'psc', long: ['project', 'startup-project', 'context', 'connection', 'configuration', 'framework', 'runtime', 'msbuildprojectextensionspath'] }
/** alembic and `flask db`: `downgrade base` unapplies every migration (`--sql` only prints it). */
const downgradeBase = (verbs: string[], argv: Word[]) => verbs.join(' ').includes('downgrade base') && !has(argv, 'sql')

/** Rules of the frameworks' tools (part of the table in rules.ts). */
export const FRAMEWORKS: Record<string, Rule> = {
  prisma: when(([a = '', b = ''], argv) => (a === 'migrate' && b === 'reset') || (a === 'db' && b === 'push' && has(argv, 'force-reset', 'accept-data-loss')), { long: ['schema', 'config'] }),
  rails: anyVerb(RAILS),
  rake: anyVerb(RAILS),
  'manage.py': django,
  'django-admin': django,
  // Laravel, AdonisJS: every table dropped (`fresh`, `db:wipe`) or every migration rolled back (`reset`, `refresh`).
  artisan: anyVerb(/^(?:migrate:(?:fresh|reset|refresh)|db:wipe)$/),
  ace: anyVerb(/^(?:migration:(?:fresh|reset|refresh)|db:wipe)$/),
  // Symfony's bin/console with Doctrine.
  console: anyVerb(/^doctrine:(?:database|schema):drop$/),
  // `mix do ecto.drop, ecto.create` names tasks with a comma after them.
  mix: when((verbs, argv) => verbs.some((v) => /^ecto\.(?:drop|reset),?$/.test(v) || (/^ecto\.rollback,?$/.test(v) && has(argv, 'all')))),
  sequelize: anyVerb(/^db:(?:drop|migrate:undo:all)$/),
  'sequelize-cli': anyVerb(/^db:(?:drop|migrate:undo:all)$/),
  knex: when((verbs, argv) => verbs.includes('migrate:rollback') && has(argv, 'all'), { long: ['knexfile', 'cwd', 'env', 'specific', 'migrations-directory'] }),
  typeorm: anyVerb(/^schema:drop$/),
  'typeorm-ts-node-commonjs': anyVerb(/^schema:drop$/),
  'typeorm-ts-node-esm': anyVerb(/^schema:drop$/),
  dotnet: when((verbs) => verbs[0] === 'ef' && DOTNET_EF.test(verbs.slice(1).join(' ')), EF),
  'dotnet-ef': when((verbs) => DOTNET_EF.test(verbs.join(' ')), EF),
  alembic: when(downgradeBase, { arg: 'cnx', long: ['config', 'name'] }),
  flask: when((verbs, argv) => verbs[0] === 'db' && downgradeBase(verbs, argv), { arg: 'A', long: ['app', 'env-file'] }),
  // Rust: diesel_cli and sqlx-cli drop (and recreate) the database.
  diesel: when(([a = '', b = '']) => a === 'database' && /^(?:reset|drop)$/.test(b), { long: ['database-url', 'config-file', 'migration-dir'] }),
  sqlx: when(([a = '', b = '']) => /^(?:database|db)$/.test(a) && /^(?:reset|drop)$/.test(b), { arg: 'D', long: ['database-url', 'source', 'connect-timeout'] }),
}


/**
 * An interpreter running a framework's tool as its script (`python3 manage.py flush`, `php artisan
 * db:wipe`, `ruby bin/rails db:drop`, `node ace db:wipe`, `python -m django flush`): the script and
 * its arguments are judged as that tool. `script` is the interpreter's words from its script on.
 */
export function frameworkScript(script: Word[], module: boolean, j: Judge, interpreter: string): void {
  const first = script[0]
  if (!first?.literal) return
  if (module && first.value === 'django') j.argv([{ ...first, value: 'django-admin' }, ...script.slice(1)], [interpreter])
  else if (!module && Object.hasOwn(FRAMEWORKS, basename(first.value))) j.argv(script, [interpreter])
}
