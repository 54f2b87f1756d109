#!/usr/bin/env bash
# Reproduces Section 8 with one command, from any directory: builds ufl, trains the four
# configs of configs/section8/ with seeds 1-5, collects the runs and writes the table and
# figures. About 50 s of wall time on 2 cores (20 runs of ~4.3 s, two at a time, one thread each).
#
#   scripts/reproduce_section8.sh
#
# Output (UFL_RESULTS, default results/section8 in the repository):
#   runs/<kind>-s<seed>/   the 20 run folders      runs.csv   every run's metrics and config
#   table.md, table.csv    mean ± std per dataset  fig1_operators, fig2_emergence,
#   logs/                  one log per run          fig3_training (.png and .svg)
#
# Complete runs are skipped and interrupted ones resumed (ufl train --continue): rerunning after
# an interruption continues where it stopped (delete a run folder to redo it).
#
# Env:
#   JOBS=N            parallel runs (default: nproc); each run uses one thread
#   UFL_BIN=path      use this ufl binary and do not build
#   UFL_EXTRA_ARGS    extra flags for every `ufl train`, for a quick check, e.g.
#                     UFL_EXTRA_ARGS="--set train.steps=100" UFL_RESULTS=/tmp/s8 scripts/reproduce_section8.sh
#                     (UFL_RESULTS is then required, so short runs never land in
#                     results/section8 where the full runs would be skipped in their favour)
#   UFL_RESULTS=dir   output folder (relative to the current directory)
#   SEEDS="1 2 3 4 5" the seeds;  PYTHON=path  python with numpy+matplotlib (/usr/bin/python3)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${UFL_EXTRA_ARGS:-}" ] && [ -z "${UFL_RESULTS:-}" ]; then
  echo "reproduce_section8.sh: UFL_EXTRA_ARGS changes the runs; set UFL_RESULTS to another" \
       "folder too (e.g. UFL_RESULTS=/tmp/section8-quick)" >&2
  exit 2
fi
results=$(realpath -m "${UFL_RESULTS:-$root/results/section8}")
jobs=${JOBS:-$(nproc)}
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3

# Build: configure once, then an incremental build (a no-op when up to date).
if [ -n "${UFL_BIN:-}" ]; then
  ufl=$(realpath "$UFL_BIN")
else
  [ -f "$root/build/CMakeCache.txt" ] || cmake -S "$root" -B "$root/build" -DUFL_PCH=ON
  cmake --build "$root/build" -j "$(nproc)" --target ufl  # the tests are scripts/test.sh's
  ufl=$root/build/ufl
fi

# One shell line per missing run; xargs runs them, $jobs at a time, one thread each.
mkdir -p "$results/runs" "$results/logs"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
total=0
for kind in local global periodic lowrank; do
  for seed in ${SEEDS:-1 2 3 4 5}; do
    total=$((total + 1))
    run=$results/runs/$kind-s$seed
    # complete runs are skipped; an interrupted one (Ctrl-C) is resumed by --continue
    grep -qs '"status": "complete"' "$run/manifest.json" && continue
    # UFL_EXTRA_ARGS is split on spaces on purpose (several flags in one variable).
    printf 'OMP_NUM_THREADS=1 %q train %q --seed %q --out %q --continue --threads 1 --quiet %s > %q 2>&1\n' \
      "$ufl" "$root/configs/section8/$kind.json" "$seed" "$run" "${UFL_EXTRA_ARGS:-}" \
      "$results/logs/$kind-s$seed.log" >> "$list"
  done
done
todo=$(wc -l < "$list")
echo "section 8: $total runs, $((total - todo)) already complete, training $todo with $jobs parallel jobs"
start=$SECONDS
xargs -r -d '\n' -n 1 -P "$jobs" bash -c < "$list" || {
  echo "some runs failed; see $results/logs/ (rerun this script to retry only those)" >&2
  exit 1
}
echo "trained $todo runs in $((SECONDS - start)) s"

"$ufl" collect "$results/runs" --out "$results/runs.csv"
"$python" "$root/scripts/section8_report.py" "$results/runs" "$results"
# The README shows the table and figures of the default results folder only.
if [ "$results" = "$root/results/section8" ]; then
  "$python" "$root/scripts/update_readme_results.py" "$results"
fi

echo
echo "runs:    $results/runs/<kind>-s<seed>/"
echo "csv:     $results/runs.csv"
echo "table:   $results/table.md, $results/table.csv"
echo "figures: $results/fig1_operators.png, fig2_emergence.png, fig3_training.png (and .svg)"
