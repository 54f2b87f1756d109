#!/usr/bin/env bash
# ufl on a shared machine (issue: "speed that holds on a shared machine"; docs/running.md,
# "Threads"): whole `ufl train` commands, timed quiet and with other work on the machine,
# at 1 thread, at every core, and with ufl's default (the thread count follows the free cores).
#
#   bench/under_load.sh [--repeats N] [--steps-small N] [--steps-large N]
#
# Runs, each timed as a whole command (wall seconds, the best of N repeats, default 1):
#   small: configs/section8/local.json (n = 32), 3000 steps
#   large: configs/transformer/text.json (the transformer reference configuration), 150 steps
# under three loads: quiet; one core busy (`yes > /dev/null`); every core busy (one `yes` each).
# Writes bench/results/under_load.md with the table and, per run, the ratio of the default's time
# to the quiet one-thread time (the goal: at most 1.3 with one core busy).
# Run it on an otherwise quiet machine: anything else running is extra load.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
ufl=${UFL_BIN:-$root/build/ufl}
repeats=1
steps_small=3000
steps_large=150
while [ $# -gt 0 ]; do
  case $1 in
    --repeats) repeats=$2; shift 2 ;;
    --steps-small) steps_small=$2; shift 2 ;;
    --steps-large) steps_large=$2; shift 2 ;;
    -h|--help) sed -n 2,15p "$0"; exit 0 ;;
    *) echo "under_load.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$ufl" ] || { echo "under_load.sh: no ufl binary at $ufl; build it first" >&2; exit 2; }
cores=$(nproc)
work=$(mktemp -d)
hogs=()
stop_hogs() { for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done; hogs=(); }
trap 'stop_hogs; rm -rf "$work"' EXIT

# One whole command, best of the repeats, in seconds.
time_run() {  # name config steps threads(1|all|default)
  local best=""
  for _ in $(seq "$repeats"); do
    local flags=()
    case $4 in
      1) flags=(--threads 1) ;;
      all) flags=(--threads "$cores") ;;
    esac
    local start end
    start=$(date +%s.%N)
    env -u OMP_NUM_THREADS "$ufl" train "$root/$2" --set train.steps="$3" "${flags[@]}" \
      --out "$work/run" -f -q >/dev/null
    end=$(date +%s.%N)
    local t
    t=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
    if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
  done
  printf "%.2f" "$best"
}

declare -A seconds
runs=("small configs/section8/local.json $steps_small" "large configs/transformer/text.json $steps_large")
for load in quiet one all; do
  stop_hogs
  case $load in
    one) yes >/dev/null & hogs+=($!) ;;
    all) for _ in $(seq "$cores"); do yes >/dev/null & hogs+=($!); done ;;
  esac
  sleep 1
  for run in "${runs[@]}"; do
    read -r name config steps <<<"$run"
    for threads in 1 all default; do
      seconds[$name,$load,$threads]=$(time_run "$name" "$config" "$steps" "$threads")
      echo "$name $load threads=$threads: ${seconds[$name,$load,$threads]} s" >&2
    done
  done
done
stop_hogs

out=$here/results/under_load.md
{
  echo "# ufl under load ($(date -u +%Y-%m-%d), $(nproc) cores, $(git -C "$root" rev-parse --short HEAD))"
  echo
  echo "Whole \`ufl train\` commands, wall seconds (best of $repeats); \"one busy\": \`yes > /dev/null\` on one core;"
  echo "\"all busy\": one \`yes\` per core. default = ufl's own choice (the free cores)."
  echo
  echo "| run | load | 1 thread | $cores threads | default | default / quiet 1 thread |"
  echo "|---|---|---|---|---|---|"
  for run in "${runs[@]}"; do
    read -r name _ steps <<<"$run"
    for load in quiet one all; do
      q=${seconds[$name,quiet,1]}
      d=${seconds[$name,$load,default]}
      printf "| %s (%s steps) | %s | %s | %s | %s | %.2f |\n" "$name" "$steps" "$load" \
        "${seconds[$name,$load,1]}" "${seconds[$name,$load,all]}" "$d" "$(awk -v d="$d" -v q="$q" 'BEGIN { print d / q }')"
    done
  done
} >"$out"
cat "$out"
