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
# Complete and diverged runs are skipped and interrupted ones resumed (ufl train --continue):
# rerunning after an interruption continues where it stopped (delete a run folder to redo it).
# A run the trainer stops as diverged (exit 3, docs/running.md) is a result, counted in the
# table; any other failing run makes the script exit 1 before the report (scripts/lib/reproduce.sh).
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
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"

# shellcheck source=lib/reproduce.sh
source "$(dirname "$0")/lib/reproduce.sh"
reproduce_setup section8 results/section8

# The universal layer (runs/<kind>-s<seed>) and, beside it, the plain `linear` mixer, a free n×n
# matrix (runs/linear-<kind>-s<seed>): the table says which verdicts any fixed matrix gets too.
for mixer in universal linear; do
  prefix='' settings=''
  [ "$mixer" = universal ] || { prefix=$mixer-; settings="--set layer.mixer=$mixer"; }
  for kind in local global periodic lowrank; do
    for seed in ${SEEDS:-1 2 3 4 5}; do
      add_run "$prefix$kind-s$seed" "$root/configs/section8/$kind.json" "$seed" "$settings"
    done
  done
done
train_runs "section 8"

"$ufl" collect "$results/runs" --out "$results/runs.csv"
"$python" "$root/scripts/section8_report.py" "$results/runs" "$results"
# docs/section8.md shows the table and figures of the default results folder only.
if [ "$results" = "$root/results/section8" ]; then
  "$python" "$root/scripts/publish_section8.py" "$results"
fi

echo
echo "runs:    $results/runs/<kind>-s<seed>/"
echo "csv:     $results/runs.csv"
echo "table:   $results/table.md, $results/table.csv"
echo "figures: $results/fig1_operators.png, fig2_emergence.png, fig3_training.png (and .svg)"
