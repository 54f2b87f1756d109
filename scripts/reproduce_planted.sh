#!/usr/bin/env bash
# Reproduces the planted-structure study (docs/planted.md) with one command, from any directory:
# builds ufl, trains the universal layer, and beside it the plain `linear` mixer (a free n×n
# matrix), on the four planted kinds of configs/planted/ (hadamard, haar, dct, butterfly: optima
# outside the four families of Section 8) with seeds 1-3 (2 × 4 × 3 = 24 runs), collects the runs
# and writes the table.
#
#   scripts/reproduce_planted.sh
#
# Output (UFL_RESULTS, default results/planted in the repository):
#   runs/<mixer>-<kind>-s<seed>/   the run folders     runs.csv   every run's metrics and config
#   table.md                       does the layer reach each optimum, and what does the closest-
#                                  special-case analysis call it (and the optimum)
#   logs/                          one log per run
# With the default folder the table is copied to docs/planted/table.md.
#
# Complete runs are skipped and interrupted ones resumed (ufl train --continue): rerunning after
# an interruption continues where it stopped (delete a run folder to redo it).
#
# Env:
#   JOBS=N            parallel runs (default: nproc); each run uses one thread
#   UFL_BIN=path      use this ufl binary and do not build
#   UFL_EXTRA_ARGS    extra flags for every `ufl train` (e.g. "--set train.steps=200"); then
#                     UFL_RESULTS is required, so short runs never land in results/planted
#   UFL_RESULTS=dir   output folder (relative to the current directory)
#   SEEDS="1 2 3"     the seeds;  MIXERS="universal linear" the mixers
#   PYTHON=path       python with numpy+matplotlib (default /usr/bin/python3)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${UFL_EXTRA_ARGS:-}" ] && [ -z "${UFL_RESULTS:-}" ]; then
  echo "reproduce_planted.sh: UFL_EXTRA_ARGS changes the runs; set UFL_RESULTS to another" \
       "folder too (e.g. UFL_RESULTS=/tmp/planted-quick)" >&2
  exit 2
fi
results=$(realpath -m "${UFL_RESULTS:-$root/results/planted}")
jobs=${JOBS:-$(nproc)}
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
mixers=${MIXERS:-universal linear}

if [ -n "${UFL_BIN:-}" ]; then
  ufl=$(realpath "$UFL_BIN")
else
  [ -f "$root/build/CMakeCache.txt" ] || cmake -S "$root" -B "$root/build" -DUFL_PCH=ON
  cmake --build "$root/build" -j "$(nproc)" --target ufl
  ufl=$root/build/ufl
fi

mkdir -p "$results/runs" "$results/logs"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
total=0
for mixer in $mixers; do
  for kind in hadamard haar dct butterfly; do
    for seed in ${SEEDS:-1 2 3}; do
      total=$((total + 1))
      name=$mixer-$kind-s$seed
      run=$results/runs/$name
      # complete runs are skipped; an interrupted one (Ctrl-C) is resumed by --continue
      grep -qs '"status": "complete"' "$run/manifest.json" && continue
      # UFL_EXTRA_ARGS is split on spaces on purpose (several flags in one variable).
      printf 'OMP_NUM_THREADS=1 %q train %q --seed %q --set name=%q --set layer.mixer=%q --out %q --continue --threads 1 --quiet %s > %q 2>&1\n' \
        "$ufl" "$root/configs/planted/$kind.json" "$seed" "$name" "$mixer" "$run" \
        "${UFL_EXTRA_ARGS:-}" "$results/logs/$name.log" >> "$list"
    done
  done
done
todo=$(wc -l < "$list")
echo "planted: $total runs, $((total - todo)) already complete, training $todo with $jobs parallel jobs"
start=$SECONDS
xargs -r -d '\n' -n 1 -P "$jobs" bash -c < "$list" || {
  echo "some runs failed; see $results/logs/ (rerun this script to retry only those)" >&2
  exit 1
}
echo "trained $todo runs in $((SECONDS - start)) s"

"$ufl" collect "$results/runs" --out "$results/runs.csv"
"$python" "$root/scripts/planted_report.py" "$results/runs" "$results"
if [ "$results" = "$root/results/planted" ]; then
  mkdir -p "$root/docs/planted"
  cp "$results/table.md" "$root/docs/planted/table.md"
fi

echo
echo "runs:  $results/runs/<mixer>-<kind>-s<seed>/"
echo "csv:   $results/runs.csv"
echo "table: $results/table.md"
