#!/usr/bin/env bash
# npm run bench:eval-real-fill -- MODEL ARM...   (ARM as NAME=SETTINGS, e.g. auto-test=auto_test=on)
#
# Brings each arm of MODEL up to BENCH_REPEAT (default 3) attempts per task over the whole suite,
# one arm after another, counting what bench/results/eval-real/runs/* already holds (BENCH_FILL):
# each arm's new attempts go to runs/<BENCH_PREFIX>-<arm>-<model>[-partN]. Stopped (Ctrl-C, or a
# file named by BENCH_HALT_FILE appearing before the next arm), the run keeps its finished
# attempts and the next call does only the rest. One model per call: run two calls side by side
# for the two models on two cores (1 thread each). The report over every run:
#   node cli/dist/main.js eval report bench/results/eval-real/runs/* --out bench/results/eval-real
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/eval-real-fill.sh MODEL NAME=SETTINGS..." >&2; exit 2; }
model=$1; shift
short=${model%%-*}
short=${short%3}
prefix=${BENCH_PREFIX:-fill}
runs=bench/results/eval-real/runs
for arm in "$@"; do
  if [ -n "${BENCH_HALT_FILE:-}" ] && [ -e "$BENCH_HALT_FILE" ]; then echo "eval-real-fill: $BENCH_HALT_FILE exists; stopping before ${arm%%=*}" >&2; exit 0; fi
  name=${arm%%=*}
  out=$prefix-$name-$short; n=2
  while [ -e "$runs/$out" ]; do out=$prefix-$name-$short-part$n; n=$((n + 1)); done
  fill=$(find "$PWD/$runs" -mindepth 2 -maxdepth 2 -name results.jsonl -printf '%h\n' | sort | paste -sd, -)
  echo "eval-real-fill: $model / $name into $runs/$out" >&2
  BENCH_FILL="$fill" BENCH_OUT="eval-real/runs/$out" BENCH_MODELS="$model" BENCH_ARMS="$arm" BENCH_REPEAT="${BENCH_REPEAT:-3}" \
    BENCH_PARALLEL=1 BENCH_MAX_ITERATIONS="${BENCH_MAX_ITERATIONS:-8}" BENCH_BUDGET_S="${BENCH_BUDGET_S:-600}" \
    nice -n "${BENCH_NICE:-19}" node bench/dist/eval-real.js
done
