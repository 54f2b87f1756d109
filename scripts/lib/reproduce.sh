# shellcheck shell=bash
# What the five scripts/reproduce_*.sh share, sourced by each after `set -euo pipefail`:
#
#   reproduce_setup NAME DEFAULT_FOLDER   the environment (UFL_RESULTS, JOBS, PYTHON, UFL_BIN, …)
#   add_run NAME CONFIG SEED [FLAGS…]     queue one `ufl train` unless the run is done
#   train_runs LABEL                      train the queued runs, JOBS at a time
#
# One rule for a run folder that is already there: a complete or a diverged run is a result and
# is skipped (a diverged run is counted in the tables, never retrained silently: delete its folder
# to redo it); an interrupted one is resumed (ufl train --continue); a run the trainer stops as
# diverged (exit 3, docs/running.md) is a result, any other failure makes the script exit 1.

# reproduce_setup NAME DEFAULT_FOLDER: sets root (the repository), results, jobs, python and ufl
# (UFL_BIN, or build/ufl built incrementally).
reproduce_setup() {
  local name=$1 default_folder=$2
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  if [ -n "${UFL_EXTRA_ARGS:-}" ] && [ -z "${UFL_RESULTS:-}" ]; then
    echo "reproduce_$name.sh: UFL_EXTRA_ARGS changes the runs; set UFL_RESULTS to another" \
         "folder too (e.g. UFL_RESULTS=/tmp/$name-quick)" >&2
    exit 2
  fi
  results=$(realpath -m "${UFL_RESULTS:-$root/$default_folder}")
  jobs=${JOBS:-$(nproc)}
  python=${PYTHON:-/usr/bin/python3}
  [ -x "$python" ] || python=python3
  # Build: configure once, then an incremental build (a no-op when up to date); the tests are
  # scripts/test.sh's.
  if [ -n "${UFL_BIN:-}" ]; then
    ufl=$(realpath "$UFL_BIN")
  else
    [ -f "$root/build/CMakeCache.txt" ] || cmake -S "$root" -B "$root/build" -DUFL_PCH=ON
    cmake --build "$root/build" -j "$(nproc)" --target ufl
    ufl=$root/build/ufl
  fi
  run_list=$(mktemp)
  trap 'rm -f "$run_list"' EXIT
  total=0
}

# run_is_result RUN: whether the folder RUN holds a finished run, complete or diverged.
run_is_result() {
  grep -qsE '"status": "(complete|diverged)"' "$1/manifest.json"
}

# add_run NAME CONFIG SEED [FLAGS…]: one shell line for xargs, training runs/NAME from CONFIG
# with --seed SEED and FLAGS, unless the run is a result already. FLAGS and UFL_EXTRA_ARGS are
# split on spaces on purpose (several flags in one argument).
add_run() {
  local name=$1 config=$2 seed=$3 run=$results/runs/$1
  shift 3
  total=$((total + 1))
  run_is_result "$run" && return 0
  printf 'OMP_NUM_THREADS=1 %q train %q --seed %q %s --out %q --continue --threads 1 --quiet %s > %q 2>&1\n' \
    "$ufl" "$config" "$seed" "$*" "$run" "${UFL_EXTRA_ARGS:-}" "$results/logs/$name.log" \
    >> "$run_list"
}

# announce_runs LABEL: how many runs there are and how many are left to train.
announce_runs() {
  mkdir -p "$results/runs" "$results/logs"
  todo=$(wc -l < "$run_list")
  echo "$1: $total runs, $((total - todo)) already done (complete or diverged)," \
       "training $todo with $jobs parallel jobs"
}

# run_queued: the queued runs, $jobs at a time, one thread each; exit 1 if one failed. As each run
# ends it prints a progress line: runs done, time so far and the time left at the pace so far
# (runs that end together count once; a long run still under way is not foreseen).
run_queued() {
  local progress started
  progress=$(mktemp)
  started=$(date +%s)
  export UFL_PROGRESS_FILE=$progress UFL_PROGRESS_TOTAL=$todo UFL_PROGRESS_START=$started
  # shellcheck disable=SC2016  # $0, $code, … are the inner shell's
  xargs -r -d '\n' -n 1 -P "$jobs" bash -c '
    bash -c "$0"; code=$?
    name=${0##*> }; name=${name%% 2>&1}; name=$(basename "$name" .log)
    {
      flock 9
      echo "$name" >> "$UFL_PROGRESS_FILE"
      done=$(wc -l < "$UFL_PROGRESS_FILE"); now=$(date +%s)
      elapsed=$((now - UFL_PROGRESS_START))
      left=$(( elapsed * (UFL_PROGRESS_TOTAL - done) / done ))
      outcome=done; [ $code = 3 ] && outcome=diverged; [ $code = 0 ] || [ $code = 3 ] || outcome="FAILED (exit $code)"
      printf "[%d/%d] %s %s; %dm%02ds so far, about %dm%02ds left\n" "$done" "$UFL_PROGRESS_TOTAL" \
        "$name" "$outcome" $((elapsed / 60)) $((elapsed % 60)) $((left / 60)) $((left % 60))
    } 9> "$UFL_PROGRESS_FILE.lock"
    [ $code = 0 ] || [ $code = 3 ]' < "$run_list" || {
    rm -f "$progress" "$progress.lock"
    echo "some runs failed; see $results/logs/ (rerun this script to retry only those)" >&2
    exit 1
  }
  rm -f "$progress" "$progress.lock"
}

# diverged_runs: how many run folders under results/runs hold a diverged run.
diverged_runs() {
  grep -lsE '"status": "diverged"' "$results"/runs/*/manifest.json | wc -l
}

# train_runs LABEL: announce_runs, run_queued, and how long it took.
train_runs() {
  announce_runs "$1"
  local start=$SECONDS
  run_queued
  echo "trained $todo runs in $((SECONDS - start)) s ($(diverged_runs) of $total diverged)"
}

# run_part LABEL: trains the queued runs, or with SLURM=1 submits them as a Slurm job array and
# exits (the study script is run again once the job has ended), then starts a new queue. For
# scripts whose parts depend on each other (a tune part before the runs at its chosen rates).
run_part() {
  if [ "${SLURM:-0}" = 1 ]; then
    announce_runs "$1"
    if [ "$todo" -gt 0 ]; then
      "$root/scripts/sweeps/slurm_array.sh" --list "$run_list" "$results"
      echo "run this script again when the job has ended, to go on with the next part or write" \
           "the report"
      exit 0
    fi
  else
    train_runs "$1"
  fi
  : > "$run_list"
  total=0
}
