#!/usr/bin/env bash
# Reproduces the Section 7 experiment (docs/section7.md) with one command, from any directory:
# builds ufl, trains
#   induction (configs/section7/induction.json) with L = 1, 2, 3 layers, residual, D = 2d,
#     seeds 1-10, 12000 steps (30 runs);
#   the four Section 8 datasets (configs/section8/) with L = 2 and 3, residual, D = 2d,
#     seeds 1-3 (24 runs), to see whether extra layers stay silent, split the work or become
#     something new;
# then collects the runs and writes the table and one figure per depth. See docs/section7.md
# §6 for how long it takes.
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
# table; any other failing run makes the script exit 1 before the report (scripts/lib/reproduce.sh).
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
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"

# shellcheck source=lib/reproduce.sh
source "$(dirname "$0")/lib/reproduce.sh"
reproduce_setup section7 results/section7
seeds=${SEEDS:-1 2 3 4 5 6 7 8 9 10}
depths=${DEPTHS:-1 2 3}
section8_seeds=${SECTION8_SEEDS-1 2 3}

# D = 2d: the stream has room for a copy of each row's neighbour (the recall circuit's layer 1).
stack="--set model.residual=true --set model.width=32"
# Longest runs first, so the parallel jobs finish together.
for depth in $(echo "$depths" | tr ' ' '\n' | sort -rn); do
  for seed in $seeds; do
    add_run "induction-L$depth-s$seed" "$root/configs/section7/induction.json" "$seed" \
      "--set model.depth=$depth $stack"
  done
done
for depth in 3 2; do
  for kind in local global periodic lowrank; do
    for seed in $section8_seeds; do
      add_run "$kind-L$depth-s$seed" "$root/configs/section8/$kind.json" "$seed" \
        "--set model.depth=$depth $stack"
    done
  done
done
train_runs "section 7"

"$ufl" collect "$results/runs" --out "$results/runs.csv"
"$python" "$root/scripts/section7_report.py" "$results/runs" "$results"

echo
echo "runs:    $results/runs/"
echo "csv:     $results/runs.csv"
echo "table:   $results/table.md"
echo "figures: $results/fig_depth<L>.png (and .svg)"
