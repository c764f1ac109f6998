#!/usr/bin/env bash
# Starts a PostgreSQL server on loopback for the tests and prints `export AGENT_TEST_DATABASE_URL=…`
# (eval it). Nothing is printed when PostgreSQL is not installed: its tests then skip (under CI they
# fail). As root (CI), Debian's cluster is started and given a password role; otherwise a private
# cluster is made in a temporary folder, and `test/postgres.sh stop <folder>` removes it.
set -euo pipefail
# Only the export line may reach stdout, since callers eval it: every tool's chatter (pg_ctlcluster
# prints "Removed stale pid file." after an unclean shutdown) goes to stderr. Redirected per command,
# not with a saved descriptor: the server a tool starts would inherit that descriptor and hold the
# caller's $(…) open forever.
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$bin" ] || exit 0

if [ "${1:-start}" = stop ]; then
  [ -d "${2:-}" ] || exit 0
  "$bin/pg_ctl" -D "$2/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$2"
  exit 0
fi

if [ "$(id -u)" = 0 ] && command -v pg_ctlcluster >/dev/null 2>&1; then
  # Debian's package makes a cluster when installed; an image that opted out gets one made here.
  if [ -z "$(pg_lsclusters -h)" ]; then pg_createcluster "$(basename "$(dirname "$bin")")" main >/dev/null; fi
  read -r version cluster port status _ < <(pg_lsclusters -h | head -n 1)
  [ "$status" = online ] || pg_ctlcluster "$version" "$cluster" start >&2
  for _ in $(seq 1 50); do "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" && break; sleep 0.2; done
  runuser -u postgres -- psql -q -p "$port" -v ON_ERROR_STOP=1 -c \
    "DO \$\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'agent_test') THEN CREATE ROLE agent_test LOGIN CREATEDB PASSWORD 'agent_test'; END IF; END\$\$;" >/dev/null
  echo "export AGENT_TEST_DATABASE_URL=postgres://agent_test:agent_test@127.0.0.1:$port/postgres"
  exit 0
fi

[ "$(id -u)" != 0 ] || exit 0
dir=$(mktemp -d "${TMPDIR:-/tmp}/agent-pg.XXXXXX")
"$bin/initdb" -D "$dir/data" -U agent_test --auth=trust >/dev/null
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off" start >/dev/null
echo "export AGENT_TEST_DATABASE_URL=postgres://agent_test@127.0.0.1:$port/postgres AGENT_TEST_PG_DIR=$dir"
