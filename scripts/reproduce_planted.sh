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
# Complete and diverged runs are skipped and interrupted ones resumed (ufl train --continue):
# rerunning after an interruption continues where it stopped (delete a run folder to redo it).
# A run the trainer stops as diverged (exit 3, docs/running.md) is a result, counted in the
# table; any other failing run makes the script exit 1 before the report (scripts/lib/reproduce.sh).
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
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"

# shellcheck source=lib/reproduce.sh
source "$(dirname "$0")/lib/reproduce.sh"
reproduce_setup planted results/planted
mixers=${MIXERS:-universal linear}

for mixer in $mixers; do
  for kind in hadamard haar dct butterfly; do
    for seed in ${SEEDS:-1 2 3}; do
      name=$mixer-$kind-s$seed
      add_run "$name" "$root/configs/planted/$kind.json" "$seed" \
        "--set name=$name --set layer.mixer=$mixer"
    done
  done
done
train_runs planted

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
