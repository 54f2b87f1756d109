#!/usr/bin/env bash
# The regression set: a fixed list of short runs that covers every dataset kind, mixer, block kind
# and task, trained at one thread (and a few at two), into one folder. Run it before and after a
# change and compare the two folders:
#
#   scripts/regression.sh /tmp/before            # with the old build (UFL_BIN=…/ufl)
#   scripts/regression.sh /tmp/after
#   /usr/bin/python3 scripts/compare_runs.py /tmp/before /tmp/after   # exit 0: bit-identical
#
# A change that is meant to move results (docs/building.md, "Results that move") is checked by
# the science instead: scripts/regression_science.py BEFORE AFTER compares the verdicts, η and
# losses within their tolerances.
#
# About 6 minutes on 2 cores (31 runs, two at a time). Complete runs are skipped, so an
# interrupted set resumes where it stopped.
#
# Env: UFL_BIN (a ufl binary; default build/ufl, built incrementally), JOBS (parallel runs,
# default nproc), THREADS_TWO=0 (skip the two-thread runs).
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}
case "${1:-}" in
  -h | --help) usage; exit 0 ;;
  "" | -*) usage >&2; echo "regression.sh: give the output folder" >&2; exit 2 ;;
esac
[ $# -eq 1 ] || { echo "regression.sh: one argument, the output folder (got $#)" >&2; exit 2; }
export UFL_RESULTS=$1

# shellcheck source=lib/reproduce.sh
source "$(dirname "$0")/lib/reproduce.sh"
reproduce_setup regression "$1"

c=$root/configs
short="--set train.steps=300"
# Section 8 and the planted structures (universal layer, their own defaults).
for kind in local global periodic lowrank; do add_run "s8-$kind" "$c/section8/$kind.json" 1; done
for kind in butterfly dct haar hadamard; do add_run "planted-$kind" "$c/planted/$kind.json" 1; done
# Every mixer on Section 8's local operator.
for mixer in attention distance convolution fourier lowrank linear; do
  add_run "s8-local-$mixer" "$c/section8/local.json" 1 "--set layer.mixer=$mixer"
done
# A larger window, and a residual stack.
add_run "s8-local-n64" "$c/section8/local.json" 2 "--set dataset.n=64"
add_run "s7-induction" "$c/section7/induction.json" 1 "$short"
# Transformer blocks: every token task, both score mixers and a fixed one.
for task in text copy mqar; do
  for mixer in universal attention convolution; do
    add_run "tf-$task-$mixer" "$c/transformer/$task.json" 1 "$short --set layer.mixer=$mixer"
  done
done
add_run "tf-induction" "$c/transformer/induction.json" 1 "$short"
add_run "tf-text-distance" "$c/transformer/text.json" 1 "$short --set layer.mixer=distance"
add_run "tf-text-rmsnorm" "$c/transformer/text.json" 3 "$short --set model.norm=rmsnorm"
train_runs "regression (1 thread)"

# The same runs at two threads must be bit-identical to the one-thread runs of the same seed
# (compare_runs.py BEFORE/one AFTER/two, matched by name).
if [ "${THREADS_TWO:-1}" != 0 ]; then
  results=$results/two-threads
  : > "$run_list"
  total=0 jobs=1
  add_run s8-local "$c/section8/local.json" 1
  add_run tf-text-universal "$c/transformer/text.json" 1 "$short --set layer.mixer=universal"
  add_run tf-mqar-attention "$c/transformer/mqar.json" 1 "$short --set layer.mixer=attention"
  add_run tf-copy-universal "$c/transformer/copy.json" 1 "$short --set layer.mixer=universal"
  sed -i 's/OMP_NUM_THREADS=1 /OMP_NUM_THREADS=2 /; s/--threads 1 /--threads 2 /' "$run_list"
  train_runs "regression (2 threads)"
fi
echo "runs: $1/runs (two threads: $1/two-threads/runs)"
