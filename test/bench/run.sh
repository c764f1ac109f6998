#!/usr/bin/env bash
# npm run bench: every benchmark in test/bench, one after the other (they measure time, so never in
# parallel). `npm run bench -- startup` runs the ones whose file name contains "startup".
set -euo pipefail
cd "$(dirname "$0")/../.."
filter="${1:-}"
mapfile -t files < <(find test/bench -name '*.bench.ts' | sort)
ran=0
for file in "${files[@]}"; do
  [[ -n "$filter" && "$file" != *"$filter"* ]] && continue
  echo "== $file"
  node --import tsx "$file"
  ran=$((ran + 1))
done
(( ran > 0 )) || { echo "no benchmark matched '${filter}'" >&2; exit 1; }
