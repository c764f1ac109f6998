#!/usr/bin/env bash
# npm test: node:test over every test file (Node 20's --test expands no globs and silently runs
# nothing for a folder of .ts files, so the list is explicit and must not be empty).
# `npm test -- test/kernel` runs the files under the given paths only.
set -euo pipefail
cd "$(dirname "$0")/.."
roots=("$@")
(( ${#roots[@]} )) || roots=(test)
mapfile -t files < <(find "${roots[@]}" -name '*.test.ts' -not -path '*/fixtures/*' -not -path '*/bench/*' -not -path '*/node_modules/*' | sort)
if (( ${#files[@]} == 0 )); then echo "no test files found under: ${roots[*]}" >&2; exit 1; fi
# Storage tests run against PostgreSQL too: start a loopback server unless one is given.
if [ -z "${AGENT_TEST_DATABASE_URL:-}" ]; then
  eval "$(bash test/postgres.sh start)"
  if [ -n "${AGENT_TEST_PG_DIR:-}" ]; then trap 'bash test/postgres.sh stop "$AGENT_TEST_PG_DIR"' EXIT; fi
fi
export AGENT_TEST_DATABASE_URL
node --import tsx --test --test-concurrency=2 --test-reporter=tap --test-timeout=120000 "${files[@]}"
