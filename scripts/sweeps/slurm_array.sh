#!/usr/bin/env bash
#SBATCH --job-name=ufl-sweep
#SBATCH --cpus-per-task=1
#SBATCH --mem=2G
#SBATCH --time=00:20:00
# Slurm job-array template: one ufl run per array task, the grid of scripts/sweep.sh.
#
# How to use (on the login node, in the repository, on a file system the nodes share):
#   1. build once:   cmake -S . -B build && cmake --build build -j
#      (build on the nodes' CPU type, or configure with -DUFL_NATIVE=OFF)
#   2. submit:       scripts/sweeps/slurm_array.sh OUT_DIR CONFIG... -- AXIS...
#      e.g. the noise × dataset grid of noise_by_dataset.sh:
#        scripts/sweeps/slurm_array.sh results/sweeps/noise configs/section8/*.json \
#            -- --set dataset.noise=0.25,0.5,1.0 --seed 1,2
#      This lists the grid with sweep.sh (SWEEP_LIST_ONLY=1): OUT_DIR/commands.txt, one
#      shell line per run, and OUT_DIR/pending.txt, those not complete yet; it submits
#      pending.txt as `sbatch --array=0-(N-1)` of this same script, one line per task.
#      Extra sbatch flags: SBATCH_ARGS="--partition=short --account=me"; at most
#      ARRAY_LIMIT (default 50) tasks run at once.
#   3. collect when all tasks are done (or rerun step 2: complete runs are skipped, so
#      only failed or missing ones are submitted again):
#        build/ufl collect OUT_DIR --out OUT_DIR/runs.csv
#        /usr/bin/python3 scripts/sweeps/plot_sweep.py OUT_DIR/runs.csv OUT_DIR/sweep
#   Per-run logs: OUT_DIR/logs/<run>.log; Slurm's own: OUT_DIR/logs/slurm-<job>_<task>.out.
#
# Each line of commands.txt runs `ufl train --continue`: a complete run is skipped and an
# interrupted one (SIGTERM from scancel, preemption or the time limit saves a checkpoint)
# resumes where it stopped, so a task that is requeued or resubmitted does no duplicate work.
# See docs/slurm.md (and scripts/test_slurm.sh, which tests this on a one-node cluster).
set -euo pipefail

if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  # Task mode: Slurm runs a copy of this script, so only absolute paths from the list count.
  list=${1:?task mode needs the commands file as its argument}
  line=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" "$list")
  [ -n "$line" ] || { echo "no line $((SLURM_ARRAY_TASK_ID + 1)) in $list" >&2; exit 1; }
  echo "task $SLURM_ARRAY_TASK_ID on $(hostname): $line"
  # Say where a requeued task starts from (the line's --out is %q-quoted by sweep.sh).
  if [[ $line =~ --out\ ([^ ]+)\ --continue ]]; then
    run=$(eval "printf %s ${BASH_REMATCH[1]}")
    steps=$(sed -n 's/^ *"steps_done": \([0-9]*\).*/\1/p' "$run/manifest.json" 2> /dev/null || true)
    if grep -qs '"status": "interrupted"' "$run/manifest.json"; then
      echo "resuming $run after step $steps (interrupted before)"
    fi
  fi
  # ufl must be the batch step's process itself, not the child of a shell: a signal for the
  # batch step (`scancel --batch`, `sbatch --signal=B:TERM@…`) would otherwise end the shell
  # and never reach ufl, which then runs on untracked instead of saving a checkpoint. bash
  # does not exec a command with redirections by itself, so the line's command gets an `exec`
  # after its leading VAR=value words.
  [[ $line =~ ^(([A-Za-z_][A-Za-z0-9_]*=[^ ]*\ )*)(.*)$ ]]
  exec bash -c "${BASH_REMATCH[1]}exec ${BASH_REMATCH[3]}"
fi

# Submit mode: write the grid, then submit only the runs that are not complete yet; with --list,
# submit a commands file written elsewhere (one shell line per run, e.g. by
# scripts/reproduce_transformer.sh with SLURM=1), its Slurm output in OUT_DIR/logs.
# shellcheck source=../lib/arguments.sh
source "$(dirname "$0")/../lib/arguments.sh"
help_asked "$@"
[ $# -ge 2 ] || refuse "give OUT_DIR and at least one CONFIG (or --list COMMANDS_FILE OUT_DIR)"
case $1 in --list) ;; -*) refuse "unknown option '$1' where OUT_DIR comes first" ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$1" = --list ]; then
  [ $# -eq 3 ] || { echo "usage: slurm_array.sh --list COMMANDS_FILE OUT_DIR" >&2; exit 2; }
  pending=$2 out=$(realpath -m "$3") collect=""
else
  out=$(realpath -m "$1")
  SWEEP_LIST_ONLY=1 "$root/scripts/sweep.sh" "$@"
  pending=$out/pending.txt collect="; when done: $root/build/ufl collect $out --out $out/runs.csv"
fi
n=$(wc -l < "$pending")
[ "$n" -gt 0 ] || { echo "all runs complete; collect with: $root/build/ufl collect $out --out $out/runs.csv"; exit 0; }
# A snapshot of the runs not complete yet: a later resubmission rewrites pending.txt, and
# tasks still queued (or requeued) from this one must keep reading the lines they were
# numbered by.
mkdir -p "$out/logs"
todo=$(mktemp "$out/pending-$(date +%Y%m%d-%H%M%S)-XXXX")
cp "$pending" "$todo"
# Slurm's own output next to the runs' logs, not in the folder we were called from; appended
# to, so that a requeued task's file keeps every attempt (SBATCH_ARGS may override both).
# shellcheck disable=SC2086  # SBATCH_ARGS holds several flags
job=$(sbatch --parsable --output="$out/logs/slurm-%A_%a.out" --open-mode=append ${SBATCH_ARGS:-} \
  --array="0-$((n - 1))%${ARRAY_LIMIT:-50}" "$0" "$todo")
job=${job%%;*}  # --parsable prints JOBID[;CLUSTER]
echo "submitted $n tasks as Slurm job $job$collect"
