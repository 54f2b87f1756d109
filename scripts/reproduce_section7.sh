#!/usr/bin/env bash
# Reproduces the Section 7 experiment (docs/section7.md) with one command, from any directory:
# builds ufl, trains
#   induction (configs/section7/induction.json) with L = 1, 2, 3 layers, residual, D = 2d,
#     seeds 1-10, 12000 steps (30 runs);
#   the four Section 8 datasets (configs/section8/) with L = 2 and 3, residual, D = 2d,
#     seeds 1-3 (24 runs), to see whether extra layers stay silent, split the work or become
#     something new;
# then collects the runs and writes the table and one figure per depth. See the README
# ("Section 7") for how long it takes.
#
#   scripts/reproduce_section7.sh
#
# Output (UFL_RESULTS, default results/section7 in the repository):
#   runs/induction-L<L>-s<seed>/, runs/<kind>-L<L>-s<seed>/   the run folders
#   runs.csv          every run's metrics (layerN.* per layer) and config
#   table.md          per depth: success rate, η, η_fix, blank MSE, routing, verdicts, offsets
#   fig_depth<L>.png  the best seed's layers, one row each: M̄_l, M_l(H_{l-1}) of one test sample
#                     (key/value/blank rows marked), the diagonal-energy profile; and the
#                     training curves of every seed that did not diverge (also .svg)
#   logs/             one log per run
#
# Complete and diverged runs are skipped and interrupted ones resumed (ufl train --continue):
# rerunning after an interruption continues where it stopped (delete a run folder to redo it).
# A run the trainer stops as diverged (exit 3, docs/running.md) is a result, counted in the
# table; any other failing run makes the script exit 1 before the report.
#
# Env:
#   JOBS=N             parallel runs (default: nproc); each run uses one thread
#   UFL_BIN=path       use this ufl binary and do not build
#   UFL_EXTRA_ARGS     extra flags for every `ufl train` (e.g. "--set train.steps=2000"); then
#                      UFL_RESULTS is required, so short runs never land in results/section7
#   UFL_RESULTS=dir    output folder (relative to the current directory)
#   SEEDS="1 … 10"     induction's seeds;  DEPTHS="1 2 3"  induction's depths
#   SECTION8_SEEDS="1 2 3"  the Section 8 datasets' seeds ("" skips them)
#   PYTHON=path        python with numpy+matplotlib (/usr/bin/python3)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${UFL_EXTRA_ARGS:-}" ] && [ -z "${UFL_RESULTS:-}" ]; then
  echo "reproduce_section7.sh: UFL_EXTRA_ARGS changes the runs; set UFL_RESULTS to another" \
       "folder too (e.g. UFL_RESULTS=/tmp/section7-quick)" >&2
  exit 2
fi
results=$(realpath -m "${UFL_RESULTS:-$root/results/section7}")
jobs=${JOBS:-$(nproc)}
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
seeds=${SEEDS:-1 2 3 4 5 6 7 8 9 10}
depths=${DEPTHS:-1 2 3}
section8_seeds=${SECTION8_SEEDS-1 2 3}

if [ -n "${UFL_BIN:-}" ]; then
  ufl=$(realpath "$UFL_BIN")
else
  [ -f "$root/build/CMakeCache.txt" ] || cmake -S "$root" -B "$root/build" -DUFL_PCH=ON
  cmake --build "$root/build" -j "$(nproc)" --target ufl  # the tests are scripts/test.sh's
  ufl=$root/build/ufl
fi

mkdir -p "$results/runs" "$results/logs"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
total=0
# add_run NAME CONFIG SEED DEPTH: one shell line for xargs unless the run is complete.
add_run() {
  local name=$1 config=$2 seed=$3 depth=$4 run=$results/runs/$1
  total=$((total + 1))
  # A complete or diverged run is a result: skip it.
  grep -qsE '"status": "(complete|diverged)"' "$run/manifest.json" && return 0
  # D = 2d: the stream has room for a copy of each row's neighbour (the recall circuit's layer 1).
  # UFL_EXTRA_ARGS is split on spaces on purpose (several flags in one variable).
  printf 'OMP_NUM_THREADS=1 %q train %q --seed %q --set model.depth=%q --set model.residual=true --set model.width=32 --out %q --continue --threads 1 --quiet %s > %q 2>&1\n' \
    "$ufl" "$config" "$seed" "$depth" "$run" "${UFL_EXTRA_ARGS:-}" \
    "$results/logs/$name.log" >> "$list"
}
# Longest runs first, so the parallel jobs finish together.
for depth in $(echo "$depths" | tr ' ' '\n' | sort -rn); do
  for seed in $seeds; do
    add_run "induction-L$depth-s$seed" "$root/configs/section7/induction.json" "$seed" "$depth"
  done
done
for depth in 3 2; do
  for kind in local global periodic lowrank; do
    for seed in $section8_seeds; do
      add_run "$kind-L$depth-s$seed" "$root/configs/section8/$kind.json" "$seed" "$depth"
    done
  done
done
todo=$(wc -l < "$list")
echo "section 7: $total runs, $((total - todo)) already done (complete or diverged), training $todo with $jobs parallel jobs"
start=$SECONDS
# A diverged run (exit 3) is a result, not a failure of the script: it is counted in the table.
xargs -r -d '\n' -n 1 -P "$jobs" bash -c 'bash -c "$0"; code=$?; [ $code = 0 ] || [ $code = 3 ]' \
  < "$list" || {
  echo "some runs failed; see $results/logs/ (rerun this script to retry only those)" >&2
  exit 1
}
echo "trained $todo runs in $((SECONDS - start)) s" \
     "($(grep -lsE '"status": "diverged"' "$results"/runs/*/manifest.json | wc -l) of $total diverged)"

"$ufl" collect "$results/runs" --out "$results/runs.csv"
"$python" "$root/scripts/section7_report.py" "$results/runs" "$results"

echo
echo "runs:    $results/runs/"
echo "csv:     $results/runs.csv"
echo "table:   $results/table.md"
echo "figures: $results/fig_depth<L>.png (and .svg)"
