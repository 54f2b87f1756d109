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
# With the default folder, the table and figure are copied to docs/universality/ and the results
# section of docs/universality.md (§6) is regenerated.
#
# Complete and diverged runs are skipped and interrupted ones resumed (ufl train --continue):
# rerunning after an interruption continues where it stopped (delete a run folder to redo it).
# A run the trainer stops as diverged (exit 3, docs/running.md) is a result, counted in the
# table; any other failing run makes the script exit 1 before the report (scripts/lib/reproduce.sh).
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
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"

# shellcheck source=lib/reproduce.sh
source "$(dirname "$0")/lib/reproduce.sh"
reproduce_setup universality results/universality
mixers=${MIXERS:-universal attention convolution fourier lowrank linear}

# The slow (input-dependent) mixers first, so that the parallel jobs end together.
for mixer in $mixers; do
  settings="--set layer.mixer=$mixer"
  [ "$mixer" = lowrank ] && settings="$settings --set layer.rank=4"
  for kind in local global periodic lowrank; do
    for seed in ${SEEDS:-1 2 3 4 5}; do
      name=$mixer-$kind-s$seed
      add_run "$name" "$root/configs/section8/$kind.json" "$seed" "--set name=$name $settings"
    done
  done
done
announce_runs universality
TIMEFORMAT="trained $todo runs in %R s of wall time (CPU: %U s user + %S s system)"
time run_queued

"$ufl" collect "$results/runs" --out "$results/runs.csv"
"$python" "$root/scripts/universality_report.py" "$results/runs" "$results"
# docs/universality.md shows the table and figure of the default results folder only.
if [ "$results" = "$root/results/universality" ]; then
  "$python" "$root/scripts/universality_report.py" --publish "$results"
fi

echo
echo "runs:   $results/runs/<mixer>-<kind>-s<seed>/"
echo "csv:    $results/runs.csv"
echo "table:  $results/table.md, $results/table.csv"
echo "figure: $results/fig_universality.png (and .svg)"
