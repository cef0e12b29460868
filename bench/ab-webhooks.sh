#!/bin/sh
# A/B of the webhook rows (group 5, both adapters): the service built in another checkout (A, its
# dist/ built) against this one (B), in alternating rounds A B B A A B ... on the same machine, so
# that its drift falls on both. Each round is a full `BENCH_ONLY=5` run (its own database and
# seed); the runner, seed and migrations are this checkout's for both.
#   sh bench/ab-webhooks.sh /path/to/other/checkout [rounds per side, default 2]
set -eu
A=${1:?usage: sh bench/ab-webhooks.sh /path/to/other/checkout [rounds]}
ROUNDS=${2:-2}
NODE=node_modules/.bin/node
npm run build --silent
node_modules/.bin/tsc -p bench/tsconfig.json
out=bench/.tmp/ab-webhooks
mkdir -p "$out"
rm -f "$out"/*.md "$out"/*.log
run() {
  root=$2
  echo "[ab] round $3: $1 ($root)" >&2
  BENCH_SERVICE_ROOT=$root BENCH_ONLY=5 "$NODE" dist/bench/run.js >/dev/null 2>"$out/$1-$3.log"
  cp bench/.tmp/RESULTS-partial.md "$out/$1-$3.md"
}
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then
    run A "$A" "$r"
    run B "$(pwd)" "$r"
  else
    run B "$(pwd)" "$r"
    run A "$A" "$r"
  fi
done
# the per-adapter rows (id | adapter | name | rps | p50 | p99 | errors | ...)
for f in "$out"/*.md; do
  grep '^| 5[a-d] | [EF]' "$f" | cut -d'|' -f2,3,5,6,7,8 | sed "s|^|$(basename "$f" .md) |"
done
