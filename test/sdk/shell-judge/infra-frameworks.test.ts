// Frameworks' and migration tools' database resets (`infra-destroy`), directly, through package and
// language runners and through their interpreter, with their everyday look-alikes. String literals
// only: nothing here is run.

import { test } from 'node:test'
import { assertFlagged, assertHarmless } from './cases.ts'

test('JavaScript: prisma, sequelize, knex, typeorm, AdonisJS, through npx, pnpm, bunx, yarn', async () => {
  await assertFlagged([
    ['prisma migrate reset', 'infra-destroy'],
    ['npx prisma migrate reset --force', 'infra-destroy'],
    ['pnpm exec prisma migrate reset', 'infra-destroy'],
    ['pnpm prisma migrate reset', 'infra-destroy'],
    ['bunx prisma db push --force-reset', 'infra-destroy'],
    ['yarn prisma db push --accept-data-loss', 'infra-destroy'],
    ['npx prisma --schema db/schema.prisma migrate reset', 'infra-destroy'],
    ['node node_modules/.bin/prisma migrate reset', 'infra-destroy'],
    ['npx sequelize-cli db:drop', 'infra-destroy'],
    ['npx sequelize db:migrate:undo:all', 'infra-destroy'],
    ['npx knex migrate:rollback --all', 'infra-destroy'],
    ['npx typeorm schema:drop -d src/data-source.ts', 'infra-destroy'],
    ['node ace migration:fresh', 'infra-destroy'],
    ['node ace db:wipe', 'infra-destroy'],
  ])
  await assertHarmless(['prisma migrate dev', 'npx prisma generate', 'npx prisma db push', 'pnpm prisma migrate deploy', 'npx sequelize-cli db:migrate', 'npx knex migrate:rollback', 'npx knex migrate:latest', 'node ace migration:run'])
})

test('Ruby: rails and rake db tasks, through bin/, bundle exec and ruby', async () => {
  await assertFlagged([
    ['rails db:drop', 'infra-destroy'],
    ['bin/rails db:reset', 'infra-destroy'],
    ['./bin/rails db:schema:load', 'infra-destroy'],
    ['bundle exec rails db:drop', 'infra-destroy'],
    ['bundle exec rake db:reset', 'infra-destroy'],
    ['rake db:drop', 'infra-destroy'],
    ['RAILS_ENV=production bin/rails db:drop DISABLE_DATABASE_ENVIRONMENT_CHECK=1', 'infra-destroy'],
    ['bin/rails db:drop db:create db:migrate', 'infra-destroy'],
    ['rails db:migrate:reset', 'infra-destroy'],
    ['rails db:seed:replant', 'infra-destroy'],
    ['rails db:drop:all', 'infra-destroy'],
    ['ruby bin/rails db:purge', 'infra-destroy'],
  ])
  await assertHarmless(['rails db:migrate', 'bin/rails db:prepare', 'bundle exec rails db:seed', 'bundle exec rspec', 'bundle install', 'rake db:test:prepare', 'rails db:rollback', 'rails server'])
})

test('Python: Django flush, alembic and flask db downgrade base, through python, poetry run, uv run', async () => {
  await assertFlagged([
    ['python manage.py flush', 'infra-destroy'],
    ['python3 manage.py flush --noinput', 'infra-destroy'],
    ['./manage.py flush', 'infra-destroy'],
    ['python manage.py --settings=app.prod flush', 'infra-destroy'],
    ['django-admin flush', 'infra-destroy'],
    ['python -m django flush', 'infra-destroy'],
    ['python manage.py reset_db', 'infra-destroy'],
    ['python manage.py migrate shop zero', 'infra-destroy'],
    ['poetry run python manage.py flush', 'infra-destroy'],
    ['uv run python manage.py flush', 'infra-destroy'],
    ['uv run --with django manage.py flush', 'infra-destroy'],
    ['pipenv run python manage.py flush', 'infra-destroy'],
    ['alembic downgrade base', 'infra-destroy'],
    ['flask db downgrade base', 'infra-destroy'],
  ])
  await assertHarmless(['python manage.py migrate', 'python3 manage.py makemigrations', './manage.py runserver', 'python manage.py sqlflush', 'poetry run pytest', 'uv run pytest -q', 'alembic upgrade head', 'alembic downgrade -1', 'alembic downgrade base --sql', 'flask db upgrade'])
})

test('PHP, Elixir, .NET, Rust: artisan, Symfony console, mix ecto, dotnet ef, diesel, sqlx', async () => {
  await assertFlagged([
    ['php artisan migrate:fresh --seed', 'infra-destroy'],
    ['php artisan migrate:reset', 'infra-destroy'],
    ['php artisan migrate:refresh', 'infra-destroy'],
    ['./artisan db:wipe --force', 'infra-destroy'],
    ['php bin/console doctrine:database:drop --force', 'infra-destroy'],
    ['bin/console doctrine:schema:drop --force', 'infra-destroy'],
    ['mix ecto.drop', 'infra-destroy'],
    ['mix ecto.reset', 'infra-destroy'],
    ['MIX_ENV=prod mix ecto.rollback --all', 'infra-destroy'],
    ['mix do ecto.drop, ecto.create', 'infra-destroy'],
    ['dotnet ef database drop --force', 'infra-destroy'],
    ['dotnet ef database update 0', 'infra-destroy'],
    ['dotnet ef --project src/Api database drop', 'infra-destroy'],
    ['diesel database reset', 'infra-destroy'],
    ['sqlx database drop -y', 'infra-destroy'],
  ])
  await assertHarmless(['php artisan migrate', 'php artisan migrate:rollback', 'php artisan serve', 'bin/console cache:clear', 'mix ecto.migrate', 'mix ecto.rollback', 'mix test', 'dotnet ef database update', 'dotnet ef migrations add Init', 'dotnet build', 'diesel migration run', 'sqlx migrate run'])
})
