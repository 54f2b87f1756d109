#!/usr/bin/env bash
# End-to-end test of scripts/sweeps/slurm_array.sh on a real Slurm (CI; root on Debian 12 with
# `UFL_WITH_SLURM=1 bash scripts/install_deps.sh`): starts a one-node cluster
# (scripts/slurm_cluster.sh) and checks that
#   1. a 2 configs × 2 seeds sweep runs to the end: every run complete, every task COMPLETED,
#      Slurm's output in OUT_DIR/logs (none in the submitting folder), `ufl collect` finds all;
#   2. resubmitting it has nothing to do and leaves no empty pending-… file;
#   3. a running task stopped with `scancel --batch --signal=TERM` leaves an interrupted run with
#      a checkpoint and, once requeued (`scontrol requeue`), resumes from it; requeued again while
#      running (Slurm's preempt-and-requeue), it stops and resumes again; it ends complete and
#      bit-identical to the same run trained without interruption;
# then stops the cluster (also on failure). About a minute on an idle machine.
#
#   scripts/test_slurm.sh        # env: UFL_BIN (default build/ufl, built if missing),
#                                # UFL_SLURM_PORT (default 6837, apart from a cluster on 6817)
set -euo pipefail
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"

root=$(cd "$(dirname "$0")/.." && pwd)
ufl=${UFL_BIN:-$root/build/ufl}
if [ ! -x "$ufl" ]; then
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$root/build" -j "$(nproc)" --target ufl
fi
ufl=$(realpath "$ufl")
cluster=$root/scripts/slurm_cluster.sh
submit=$root/scripts/sweeps/slurm_array.sh
local_config=$root/configs/section8/local.json global_config=$root/configs/section8/global.json

work=$(mktemp -d /tmp/ufl-slurm-test.XXXXXX)
export UFL_SLURM_DIR=$work/cluster UFL_SLURM_PORT=${UFL_SLURM_PORT:-6837} UFL_BIN=$ufl
export SLURM_CONF=$UFL_SLURM_DIR/slurm.conf
passed=0
finish() {
  bash "$cluster" stop > /dev/null 2>&1 || true
  if [ $passed = 1 ]; then rm -rf "$work"; else echo "test_slurm: files kept in $work" >&2; fi
}
trap finish EXIT

start=$SECONDS
fail() { echo "test_slurm: FAIL: $*" >&2; exit 1; }
ok() { printf 'ok (%3d s): %s\n' $((SECONDS - start)) "$*"; }
complete() { grep -qs '"status": "complete"' "$1/manifest.json"; }
manifest_number() {  # manifest_number RUN KEY
  sed -n "s/^ *\"$2\": \\([0-9]*\\).*/\\1/p" "$1/manifest.json"
}
job_of() { sed -n 's/^submitted .* as Slurm job \([0-9]*\);.*/\1/p' <<< "$1"; }
# Waits until nothing of job $1 is pending, running or completing (deadline: $2 seconds).
wait_job() {
  local deadline=$((SECONDS + $2))
  while [ -n "$(squeue -h -j "$1" 2> /dev/null || true)" ]; do
    [ $SECONDS -lt "$deadline" ] || { squeue -j "$1" >&2; fail "job $1 not done after $2 s"; }
    sleep 1
  done
}
task_state() { scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }

bash "$cluster" start
ok "cluster started"

# Submit from a folder of its own: nothing may land there.
mkdir "$work/submit"
cd "$work/submit"

# 1. A 2 × 2 sweep, short runs.
sweep=$work/sweep
said=$(bash "$submit" "$sweep" "$local_config" "$global_config" -- --set train.steps=300 --seed 1,2)
echo "$said"
job=$(job_of "$said")
[ -n "$job" ] || fail "no job ID in the submission's output"
wait_job "$job" 90
runs=0
for run in "$sweep"/{local,global}__seed={1,2}; do
  complete "$run" || fail "$run is not complete (see $sweep/logs)"
  runs=$((runs + 1))
done
for task in 0 1 2 3; do
  state=$(task_state "${job}_$task")
  [ "$state" = COMPLETED ] || fail "task ${job}_$task is $state"
  [ -s "$sweep/logs/slurm-${job}_$task.out" ] || fail "no $sweep/logs/slurm-${job}_$task.out"
done
[ -z "$(ls -A "$work/submit")" ] || fail "files left in the submitting folder: $(ls -A "$work/submit")"
ok "sweep: $runs runs complete, 4 tasks COMPLETED, Slurm output in logs/"
"$ufl" collect "$sweep" --out "$sweep/runs.csv"
[ "$(tail -n +2 "$sweep/runs.csv" | wc -l)" = 4 ] || fail "runs.csv does not hold 4 runs"
for run in local__seed=1 local__seed=2 global__seed=1 global__seed=2; do
  grep -q "^$sweep/$run," "$sweep/runs.csv" || fail "$run missing from runs.csv"
done
ok "collected 4 runs into runs.csv"

# 2. Resubmitting a complete sweep submits nothing and leaves no empty snapshot.
said=$(bash "$submit" "$sweep" "$local_config" "$global_config" -- --set train.steps=300 --seed 1,2)
echo "$said"
grep -q "all runs complete" <<< "$said" || fail "resubmission did not say all runs complete"
[ -z "$(job_of "$said")" ] || fail "resubmission submitted a job"
[ "$(find "$sweep" -maxdepth 1 -name 'pending-*' | wc -l)" = 1 ] ||
  fail "expected only the first submission's pending-… file: $(ls "$sweep")"
[ -z "$(find "$sweep" -maxdepth 1 -name 'pending-*' -empty)" ] || fail "an empty pending-… file"
ok "resubmission: nothing to do, no empty pending-… file"

# 3. Preemption, twice on the same run (long enough to be caught running): SIGTERM to the
# running task, then `scontrol requeue`; once it runs again, `scontrol requeue` of the running
# task (Slurm's preempt-and-requeue: SIGTERM, then back to the queue).
steps=12000
preempt=$work/preempt run=$work/preempt/local__seed=3
said=$(bash "$submit" "$preempt" "$local_config" -- --set train.steps=$steps \
  --set train.checkpoint_every=200 --seed 3)
echo "$said"
job=$(job_of "$said")
[ -n "$job" ] || fail "no job ID in the submission's output"
task=${job}_0 slurm_out=$preempt/logs/slurm-${job}_0.out
wait_running() {  # wait_running RESTARTS: until the task runs for the (RESTARTS+1)-th time
  local deadline=$((SECONDS + 60))
  until [ "$(task_state "$task")" = RUNNING ] &&
    scontrol show job "$task" | grep -q "Restarts=$1 "; do
    [ $SECONDS -lt $deadline ] || fail "task $task not running (restarts: $1) after 60 s"
    sleep 0.5
  done
}
# Waits until the run is interrupted after a step other than $1 (deadline 60 s).
wait_interrupted() {
  local deadline=$((SECONDS + 60))
  until grep -qs '"status": "interrupted"' "$run/manifest.json" &&
    [ "$(manifest_number "$run" steps_done)" != "$1" ]; do
    complete "$run" && fail "$run finished: the signal did not stop it (or came too late: raise steps)"
    [ $SECONDS -lt $deadline ] || fail "$run not interrupted 60 s after SIGTERM"
    sleep 0.5
  done
  [ -s "$run/checkpoint.bin" ] || fail "no checkpoint in $run"
}

# Waits until the running task has written a checkpoint after `$marker` was touched: it is then
# in the training loop, with thousands of steps to go (a fixed sleep raced a fast machine).
marker=$work/marker
wait_checkpoint() {
  local deadline=$((SECONDS + 60))
  until [ -n "$(find "$preempt" -maxdepth 2 -path '*/.local__seed=3.partial-*/checkpoint.bin' \
    -newer "$marker" 2>/dev/null)" ]; do
    complete "$run" && fail "$run finished before it could be stopped (raise steps)"
    [ $SECONDS -lt $deadline ] || fail "no new checkpoint of $run within 60 s"
    sleep 0.1
  done
}

touch "$marker"
wait_running 0
wait_checkpoint
# --batch: the signal goes to the batch step's process, which must be ufl itself (Slurm's
# default for batch jobs is to signal only job steps, of which a task has none).
scancel --batch --signal=TERM "$task"
wait_interrupted none
wait_job "$job" 30
first_stop=$(manifest_number "$run" steps_done)
[ "$first_stop" -gt 0 ] && [ "$first_stop" -lt $steps ] || fail "stopped after step $first_stop"
ok "scancel --batch --signal=TERM: task $(task_state "$task"), run interrupted after step $first_stop/$steps, checkpoint saved"

touch "$marker"
scontrol requeue "$task"
wait_running 1
wait_checkpoint
scontrol requeue "$task"
wait_interrupted "$first_stop"
second_stop=$(manifest_number "$run" steps_done)
[ "$second_stop" -gt "$first_stop" ] || fail "second stop after step $second_stop <= $first_stop"
ok "requeued, then requeued while running: interrupted again after step $second_stop"

wait_job "$job" 90
complete "$run" || fail "requeued run $run is not complete (see $preempt/logs)"
[ "$(manifest_number "$run" steps_done)" = $steps ] || fail "requeued run did not reach step $steps"
[ "$(task_state "$task")" = COMPLETED ] || fail "requeued task is $(task_state "$task")"
for stop in "$first_stop" "$second_stop"; do
  grep -q "resuming $run after step $stop " "$slurm_out" ||
    fail "the requeued task did not resume after step $stop: $(cat "$slurm_out")"
done
ok "resumed after step $first_stop, then after step $second_stop: complete"

# The resumed run is the run never interrupted, bit for bit.
OMP_NUM_THREADS=1 "$ufl" train "$local_config" --out "$work/reference" --threads 1 --quiet \
  --set train.steps=$steps --seed 3
for file in loss.csv M_mean.npy $(cd "$run" && echo params/*.npy); do
  cmp -s "$run/$file" "$work/reference/$file" || fail "$file differs from an uninterrupted run"
done
ok "resumed run bit-identical to an uninterrupted one (loss.csv, params, M_mean)"
"$ufl" collect "$preempt" --out "$preempt/runs.csv"

bash "$cluster" stop
! bash "$cluster" status > /dev/null || fail "cluster still running after stop"
ok "cluster stopped"
passed=1
echo "test_slurm: all passed in $((SECONDS - start)) s"
