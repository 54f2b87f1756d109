#!/usr/bin/env bash
# Reproduces "Universality, measured" (docs/universality.md) with one command, from any directory:
# builds ufl, trains every mixer (layer.mixer) on every Section 8 dataset with seeds 1-5 (6 × 4 ×
# 5 = 120 runs; the lowrank mixer at layer.rank = 4, the data's rank), collects the runs and
# writes the table and the figure.
#
#   scripts/reproduce_universality.sh
#
# Output (UFL_RESULTS, default results/universality in the repository):
#   runs/<mixer>-<kind>-s<seed>/   the run folders     runs.csv     every run's metrics and config
#   table.md, table.csv            η and η_fix (mean ± std) per mixer × dataset, parameters per
#                                  mixer, closest special cases, the three predictions checked
#   fig_universality.{png,svg}     the mixer × dataset heat map of η
#   logs/                          one log per run
# With the default folder, the table and figure are copied to docs/universality/ and the README's
# universality section is regenerated.
#
# Complete runs are skipped and interrupted ones resumed (ufl train --continue): rerunning after
# an interruption continues where it stopped (delete a run folder to redo it).
#
# Env:
#   JOBS=N            parallel runs (default: nproc); each run uses one thread
#   UFL_BIN=path      use this ufl binary and do not build
#   UFL_EXTRA_ARGS    extra flags for every `ufl train`, for a quick check, e.g.
#                     UFL_EXTRA_ARGS="--set train.steps=100" UFL_RESULTS=/tmp/u scripts/reproduce_universality.sh
#                     (UFL_RESULTS is then required, so short runs never land in
#                     results/universality where the full runs would be skipped in their favour)
#   UFL_RESULTS=dir   output folder (relative to the current directory)
#   SEEDS="1 2 3 4 5" the seeds;  MIXERS="universal attention …" the mixers;
#   PYTHON=path       python with numpy+matplotlib (default /usr/bin/python3)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${UFL_EXTRA_ARGS:-}" ] && [ -z "${UFL_RESULTS:-}" ]; then
  echo "reproduce_universality.sh: UFL_EXTRA_ARGS changes the runs; set UFL_RESULTS to another" \
       "folder too (e.g. UFL_RESULTS=/tmp/universality-quick)" >&2
  exit 2
fi
results=$(realpath -m "${UFL_RESULTS:-$root/results/universality}")
jobs=${JOBS:-$(nproc)}
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
mixers=${MIXERS:-universal attention convolution fourier lowrank linear}

# Build: configure once, then an incremental build (a no-op when up to date).
if [ -n "${UFL_BIN:-}" ]; then
  ufl=$(realpath "$UFL_BIN")
else
  [ -f "$root/build/CMakeCache.txt" ] || cmake -S "$root" -B "$root/build" -DUFL_PCH=ON
  cmake --build "$root/build" -j "$(nproc)" --target ufl
  ufl=$root/build/ufl
fi

# One shell line per missing run, the slow (input-dependent) mixers first so that the parallel
# jobs end together; xargs runs them, $jobs at a time, one thread each.
mkdir -p "$results/runs" "$results/logs"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
total=0
for mixer in $mixers; do
  settings="--set layer.mixer=$mixer"
  [ "$mixer" = lowrank ] && settings="$settings --set layer.rank=4"
  for kind in local global periodic lowrank; do
    for seed in ${SEEDS:-1 2 3 4 5}; do
      total=$((total + 1))
      name=$mixer-$kind-s$seed
      run=$results/runs/$name
      # complete runs are skipped; an interrupted one (Ctrl-C) is resumed by --continue
      grep -qs '"status": "complete"' "$run/manifest.json" && continue
      # $settings and UFL_EXTRA_ARGS are split on spaces on purpose (several flags each).
      printf 'OMP_NUM_THREADS=1 %q train %q --seed %q --set name=%q %s --out %q --continue --threads 1 --quiet %s > %q 2>&1\n' \
        "$ufl" "$root/configs/section8/$kind.json" "$seed" "$name" "$settings" "$run" \
        "${UFL_EXTRA_ARGS:-}" "$results/logs/$name.log" >> "$list"
    done
  done
done
todo=$(wc -l < "$list")
echo "universality: $total runs, $((total - todo)) already complete, training $todo with $jobs parallel jobs"
TIMEFORMAT="trained $todo runs in %R s of wall time (CPU: %U s user + %S s system)"
time {
  xargs -r -d '\n' -n 1 -P "$jobs" bash -c < "$list" || {
    echo "some runs failed; see $results/logs/ (rerun this script to retry only those)" >&2
    exit 1
  }
}

"$ufl" collect "$results/runs" --out "$results/runs.csv"
"$python" "$root/scripts/universality_report.py" "$results/runs" "$results"
# The README shows the table and figure of the default results folder only.
if [ "$results" = "$root/results/universality" ]; then
  "$python" "$root/scripts/universality_report.py" --publish "$results"
fi

echo
echo "runs:   $results/runs/<mixer>-<kind>-s<seed>/"
echo "csv:    $results/runs.csv"
echo "table:  $results/table.md, $results/table.csv"
echo "figure: $results/fig_universality.png (and .svg)"
