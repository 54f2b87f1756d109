#!/usr/bin/env bash
# Reproduces Section 8 with one command, from any directory: builds ufl, trains the four
# configs of configs/section8/ with seeds 1-5, and the same with the plain `linear` mixer beside
# them (the verdicts a free n×n matrix gets), collects the runs and writes the table and figures.
# About 1.5 min of wall time on 2 cores (40 runs, two at a time, one thread each).
#
#   scripts/reproduce_section8.sh
#
# Output (UFL_RESULTS, default results/section8 in the repository):
#   runs/<kind>-s<seed>/   the 20 universal runs   runs.csv   every run's metrics and config
#   runs/linear-<kind>-s<seed>/  the 20 linear-mixer runs
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
# The universal layer (runs/<kind>-s<seed>) and, beside it, the plain `linear` mixer, a free n×n
# matrix (runs/linear-<kind>-s<seed>): the table says which verdicts any fixed matrix gets too.
for mixer in universal linear; do
  prefix= settings=
  [ "$mixer" = universal ] || { prefix=$mixer-; settings="--set layer.mixer=$mixer"; }
  for kind in local global periodic lowrank; do
    for seed in ${SEEDS:-1 2 3 4 5}; do
      total=$((total + 1))
      name=$prefix$kind-s$seed
      run=$results/runs/$name
      # complete runs are skipped; an interrupted one (Ctrl-C) is resumed by --continue
      grep -qs '"status": "complete"' "$run/manifest.json" && continue
      # $settings and UFL_EXTRA_ARGS are split on spaces on purpose (several flags each).
      printf 'OMP_NUM_THREADS=1 %q train %q --seed %q %s --out %q --continue --threads 1 --quiet %s > %q 2>&1\n' \
        "$ufl" "$root/configs/section8/$kind.json" "$seed" "$settings" "$run" "${UFL_EXTRA_ARGS:-}" \
        "$results/logs/$name.log" >> "$list"
    done
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
