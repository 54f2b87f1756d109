#!/usr/bin/env bash
# Runs a grid of ufl trainings in parallel on one machine, then collects them into one CSV.
#
#   scripts/sweep.sh OUT_DIR CONFIG... [-- AXIS...]
#
# AXIS is `--seed LIST` or `--set key.path=LIST`; the grid is the Cartesian product of all
# axes and the configs. LIST separates values by commas outside brackets, so list values
# survive: `--set dataset.freqs=[2,5],[3,7]` is two values. If LIST contains `;`, it
# separates instead and commas stay literal (quote it: --set 'dataset.freqs=[2,5];[3,7]').
#
#   scripts/sweep.sh /tmp/noise configs/section8/local.json configs/section8/global.json \
#       -- --set dataset.noise=0.25,0.5,1.0 --seed 1,2,3
#
# Every run gets OUT_DIR/<config>__<key>=<value>...__seed=<n> (key = last part of the path,
# e.g. local__noise=0.25__seed=1). A --set with a single value is a fixed setting: passed to
# every run but not in the names; it is recorded in OUT_DIR/fixed_settings.txt, and a rerun
# with other fixed settings is refused. Complete runs are skipped and interrupted ones resumed
# (ufl train --continue): rerunning an interrupted sweep (or the same sweep with more values or
# seeds) continues it. Edited config files are not detected: use a new
# OUT_DIR. Logs: OUT_DIR/logs/<run>.log; the grid: OUT_DIR/commands.txt.
#
# Env: JOBS (parallel runs, default nproc; each run uses one thread), UFL_BIN (the ufl
# binary, default build/ufl, built if missing), SWEEP_LIST_ONLY=1 (only write the grid:
# OUT_DIR/commands.txt, one shell line per run, and OUT_DIR/pending.txt, the lines of runs
# not complete yet; scripts/sweeps/slurm_array.sh submits those).
set -euo pipefail
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
help_asked "$@"
[ $# -ge 2 ] || refuse "give OUT_DIR and at least one CONFIG"
case $1 in -*) refuse "unknown option '$1' where OUT_DIR comes first" ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$1"); shift
configs=()
# Every argument is checked before anything is built or queued: a sweep that fails halfway, on a
# typo in its last axis, wastes the runs before it.
fail() { echo "sweep.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  [ -f "$1" ] && [ -r "$1" ] || fail "no config file '$1'"
  configs+=("$(realpath "$1")"); shift
done
[ $# -gt 0 ] && shift  # the --
[ ${#configs[@]} -gt 0 ] || refuse "give at least one CONFIG after OUT_DIR"

# Split LIST into one value per line (see the header for the rules).
split_list() {
  local s=$1 cur="" depth=0 c i
  if [[ $s == *";"* ]]; then tr ';' '\n' <<< "$s"; return; fi
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      "[" | "{") depth=$((depth + 1)) ;;
      "]" | "}") depth=$((depth - 1)) ;;
    esac
    if [ "$c" = , ] && [ $depth -eq 0 ]; then printf '%s\n' "$cur"; cur=""; else cur+=$c; fi
  done
  printf '%s\n' "$cur"
}

# The grid, built one axis at a time: each combination is a (folder-name suffix, quoted
# ufl arguments) pair. Seeds go last so names read <config>__<settings>__seed=<n>.
names=("") args=("")
add_axis() {  # add_axis NAME_KEY FLAG VALUE_PREFIX LIST
  local key=$1 flag=$2 prefix=$3 v i new_names=() new_args=()
  mapfile -t vals < <(split_list "$4")
  for i in "${!names[@]}"; do
    for v in "${vals[@]}"; do
      # Folder names: keep letters, digits and . - + ; lists like [2,5] become 2-5.
      local safe; safe=$(tr -d '[]{} "' <<< "$v" | tr ',/:' '-_-')
      new_names+=("${names[i]}__$key=$safe")
      new_args+=("${args[i]} $(printf '%q %q' "$flag" "$prefix$v")")
    done
  done
  names=("${new_names[@]}") args=("${new_args[@]}")
}
seeds="" sets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seed | --set)
      [ $# -ge 2 ] && [ -n "$2" ] || fail "$1 needs a value (--seed LIST or --set key=LIST)"
      if [ "$1" = --seed ]; then seeds=$2; else sets+=("$2"); fi
      shift 2 ;;
    *) fail "unknown axis '$1' (use --seed LIST or --set key=LIST)" ;;
  esac
done
# An empty value (`noise=0.1,,0.2`, or a comma at an end) is a typo, not a value.
check_list() {  # check_list AXIS LIST
  local v
  while IFS= read -r v; do
    [ -n "$v" ] || fail "$1: an empty value in the list (two commas in a row, or one at an end)"
  done < <(split_list "$2")
}
[ -z "$seeds" ] || check_list "--seed $seeds" "$seeds"
for s in ${sets[@]+"${sets[@]}"}; do check_list "--set $s" "${s#*=}"; done
fixed=""  # single-valued --set: the same for every run, so not in the names
for s in ${sets[@]+"${sets[@]}"}; do
  key=${s%%=*} list=${s#*=}
  [ "$key" != "$s" ] || { echo "sweep.sh: --set needs key=values, got '$s'" >&2; exit 2; }
  if [ "$(split_list "$list" | wc -l)" -eq 1 ]; then
    fixed+=" $(printf '%q %q' --set "$s")"
    continue
  fi
  short=${key##*.}
  # Two axes with the same last part (dataset.rank, layer.rank) keep their full paths.
  for o in "${sets[@]}"; do o=${o%%=*}; [ "$o" = "$key" ] || [ "${o##*.}" != "$short" ] || short=$key; done
  add_axis "$short" --set "$key=" "$list"
done
[ -z "$seeds" ] || add_axis seed --seed "" "$seeds"

ufl=${UFL_BIN:-$root/build/ufl}
if [ ! -x "$ufl" ]; then
  echo "building ufl ($ufl not found)" >&2
  cmake -S "$root" -B "$root/build" -DUFL_PCH=ON && cmake --build "$root/build" -j "$(nproc)" --target ufl
fi
ufl=$(realpath "$ufl")

# Each run's settings, checked by ufl itself (every key, type and range) before any is queued.
for cfg in "${configs[@]}"; do
  for i in "${!names[@]}"; do
    if ! problem=$(eval "\"\$ufl\" config \"\$cfg\" $fixed ${args[i]}" 2>&1 >/dev/null); then
      fail "$(basename "$cfg" .json)${names[i]}: $(grep -m1 'error' <<< "$problem" || echo "$problem")"
    fi
  done
done

# Fixed settings are not in the run names, so a folder swept with other fixed settings
# must not be continued: its complete runs would be skipped as if they matched.
mkdir -p "$out/logs"
if [ -f "$out/fixed_settings.txt" ] && [ "$(cat "$out/fixed_settings.txt")" != "$fixed" ]; then
  echo "sweep.sh: $out was swept with other fixed settings:" >&2
  echo "  before:$(cat "$out/fixed_settings.txt")" >&2
  echo "  now:   $fixed" >&2
  echo "use another OUT_DIR (or give the setting as an axis with several values)" >&2
  exit 2
fi
printf '%s' "$fixed" > "$out/fixed_settings.txt"

# One self-contained shell line per run (absolute paths; `ufl train --continue` skips a complete
# run and resumes an interrupted one), so the same list serves xargs here and a Slurm array.
complete() { grep -qs '"status": "complete"' "$1/manifest.json"; }
list=$out/commands.txt pending=$out/pending.txt  # all runs / those not complete yet
: > "$list"
: > "$pending"
declare -A seen
todo=0 runs=()
for cfg in "${configs[@]}"; do
  base=$(basename "$cfg" .json)
  for i in "${!names[@]}"; do
    run=$base${names[i]}
    [ -z "${seen[$run]:-}" ] || { echo "sweep.sh: two runs would be named $run" >&2; exit 2; }
    seen[$run]=1 runs+=("$run")
    line=$(printf 'OMP_NUM_THREADS=1 %q train %q --out %q --continue --threads 1 --quiet%s >> %q 2>&1' \
      "$ufl" "$cfg" "$out/$run" "$fixed${args[i]}" "$out/logs/$run.log")
    printf '%s\n' "$line" >> "$list"
    complete "$out/$run" || { todo=$((todo + 1)); printf '%s\n' "$line" >> "$pending"; }
  done
done
total=${#runs[@]}
echo "sweep: $total runs in $out ($((total - todo)) already complete, $todo to run)"
[ "${SWEEP_LIST_ONLY:-0}" = 1 ] && { echo "wrote $list and $pending"; exit 0; }

jobs=${JOBS:-$(nproc)}
start=$SECONDS
# xargs keeps going after a failed run; failures are counted below from missing folders.
xargs -r -d '\n' -n 1 -P "$jobs" bash -c < "$pending" || true
failed=0
for run in "${runs[@]}"; do
  complete "$out/$run" || { failed=$((failed + 1)); echo "failed: $run (see $out/logs/$run.log)" >&2; }
done
echo "sweep: ran $todo runs in $((SECONDS - start)) s with $jobs parallel jobs; $failed failed"

if [ $((total - failed)) -gt 0 ]; then
  "$ufl" collect "$out" --out "$out/runs.csv"
  echo "collected: $out/runs.csv"
fi
[ "$failed" -eq 0 ]
