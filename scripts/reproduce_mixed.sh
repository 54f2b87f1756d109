#!/usr/bin/env bash
# Reproduces issue 40's comparison on the mixed task copy_text (docs/transformer.md §13, "The
# comparison"): does the universal layer pick the right tool where one stream needs local text
# statistics and copying at once, against attention, convolution and their hybrid, at equal
# parameter count?
#
#   scripts/reproduce_mixed.sh                   # the full comparison (about 8 hours on 2 cores)
#   MODE=quick scripts/reproduce_mixed.sh        # D = 64, seed 1, 6 runs, no tuning (15 min)
#   SLURM=1 scripts/reproduce_mixed.sh           # submit the runs as a Slurm job array
#
# The task: configs/transformer/copy_text.json (n = 128, 3 copies of 8-24 characters per window,
# gap_min 8, 65 536 training windows, the 200 validation windows), AdamW, 100 warm-up steps, then
# cosine decay from the arm's rate lr to lr/10, 4000 steps (MODE=quick: QUICK_STEPS).
# The stopping rule, fixed before any run: the fixed budget; every run is read at its last step,
# by its final validation loss (metrics.json: validation_loss, labels.copied.validation_loss,
# labels.fresh.validation_loss). No early stopping, no checkpoint picked.
#
# Arms (run names: <size>-<arm>-s<seed>), each at two sizes: d64 = the config's model (D = 64,
# 2 blocks of 2 heads) and d128 (D = 128, 4 blocks of 4 heads; n stays 128):
#   attention        softmax heads, query/key rank padded (below)
#   convolution      causal convolution heads (kernel width 5), model width padded (below)
#   hybrid           half attention, half convolution heads in every block (a layer.mixer list:
#                    ["attention","convolution"] at d64, 2 + 2 at d128), attention rank padded
#   universal        the universal layer as in the study (gate γ starting at 0.99)
#   universal_g05    the universal layer starting at γ = 0.5 (--set layer.gate_init=0.5)
#   universal_rankn  the universal layer at rank r = n = 128 (--set layer.rank=128)
#   distance         the distance mixer (docs/distance_mixer.md)
# Equal parameters: the target is the universal layer's count (distance and universal_g05 have it
# exactly). Arms with attention heads are padded by layer.rank (only the mixer grows, the rest of
# the model stays the compared one, as the transformer study's attention48); convolution, whose
# heads have nothing to grow but the kernel, by model.width. universal_rankn is not padded to and
# not padded: it asks whether rank limits the universal layer, at about twice the count. The
# counts (V = 113 characters; the report prints each run's own, metrics.json "parameters"):
#   d64:  universal 148 164; attention r=97 148 288 (+0.08 %); convolution D=80 148 916 (+0.51 %);
#         hybrid r=193 148 050 (-0.08 %); universal_rankn 296 772
#   d128: universal 954 768; attention r=64 953 216 (-0.16 %); convolution D=152 966 712
#         (+1.25 %, the nearest width divisible by 4 heads); hybrid r=129 955 336 (+0.06 %);
#         universal_rankn 1 745 808
#
# Parts (PARTS, default "tune compare control"):
#   tune:    every arm at each size at the rates 3e-4 1e-3 3e-3 1e-2 on seed 100, never reported;
#            an arm whose best final validation loss is at the grid's lowest (highest) rate also
#            trains at 1e-4 (3e-2), one step beyond that edge, once; its rate is then the best of
#            all the rates it ran (tuned_lr.tsv; the report marks a rate still at an edge).
#   compare: every arm at its tuned rate, seeds 1-3.
#   control: every arm at its tuned rate with dataset.copy_source=shuffled (copies that point to
#            nothing), seed 1 (run names control-<size>-<arm>-s1).
# MODE=quick: d64 only, seed 1, no tune part, every arm at 1e-3 (the config's rate), QUICK_STEPS
# (default 4000, the comparison's budget: at 3000 the attention control had not yet copied)
# steps; arms attention, convolution, hybrid, universal, and the controls of
# attention and convolution. Not the comparison: a check that everything runs and reads.
#
# The verdicts (scripts/mixed_report.py states them exactly): (a) attention copies, (b)
# convolution matches attention on fresh positions, else the size's comparison is VOID; (c) in
# the control every arm's copied loss stays at least its fresh loss minus 0.15 nats.
#
# Output (UFL_RESULTS, default results/mixed, or results/mixed-quick):
#   runs/  the run folders;  logs/  one log per run;  runs.csv  every run's metrics;
#   tuned_lr.tsv, extend_lr.tsv  the chosen rates and the grid's extensions;
#   tables.md  counts, rates, the table, the controls' verdicts, the heads per block;
#   fig_mixed.png, fig_mixed.svg
#
# Complete and diverged runs are skipped and interrupted ones resumed (ufl train --continue); a
# diverged run (exit 3) is a result, counted in the tables; any other failing run makes the script
# exit 1 before the report (scripts/lib/reproduce.sh). Each finished run prints a progress line
# with the time left.
#
# Env:
#   MODE=full|quick  (default full)
#   PARTS            "tune compare control" (default), or some of them (full mode)
#   SIZES            "d64 d128" (default; quick: d64)
#   ARMS             the arms to run (default: all seven; quick: its four)
#   QUICK_STEPS      the quick mode's budget (default 4000)
#   JOBS=N           parallel runs (default: nproc); each run uses one thread
#   SLURM=1          submit the runs that are not done as a Slurm job array
#                    (scripts/sweeps/slurm_array.sh; SBATCH_ARGS, ARRAY_LIMIT as there; a d128
#                    run takes longer than its default 20 minutes: SBATCH_ARGS="--time=03:00:00")
#                    and exit; run the script again when the jobs have ended, to continue
#   UFL_BIN=path     use this ufl binary and do not build
#   UFL_EXTRA_ARGS   extra flags for every `ufl train`; then UFL_RESULTS is required
#   UFL_RESULTS=dir  output folder
#   PYTHON=path      python with numpy+matplotlib (/usr/bin/python3)
set -euo pipefail
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"
# bad_setting WHY: one line naming the setting to fix, exit 2 (before anything is built or run).
bad_setting() {
  echo "reproduce_mixed.sh: $*" >&2
  exit 2
}

all_arms="attention convolution hybrid universal universal_g05 universal_rankn distance"
mode=${MODE:-full}
case $mode in
  full)
    default_folder=results/mixed
    sizes=${SIZES:-d64 d128}
    arms=${ARMS:-$all_arms}
    parts=${PARTS:-tune compare control}
    ;;
  quick)
    default_folder=results/mixed-quick
    sizes=${SIZES:-d64}
    arms=${ARMS:-universal attention hybrid convolution}  # the slowest first
    parts="compare control"  # the controls of attention and convolution only
    ;;
  *) bad_setting "MODE must be full or quick, got '$mode'" ;;
esac
for size in $sizes; do
  case $size in d64 | d128) ;; *) bad_setting "SIZES takes d64 and d128, got '$size'" ;; esac
done
for arm in $arms; do
  [[ " $all_arms " == *" $arm "* ]] || bad_setting "no arm '$arm' (ARMS: $all_arms)"
done
for part in $parts; do
  case $part in
    tune | compare | control) ;;
    *) bad_setting "PARTS takes tune compare control, got '$part'" ;;
  esac
done
quick_steps=${QUICK_STEPS:-4000}
if ! [[ $quick_steps =~ ^[1-9][0-9]*$ ]] || [ "$quick_steps" -le 100 ]; then
  bad_setting "QUICK_STEPS must be an integer above the 100 warm-up steps, got '$quick_steps'"
fi
if [ ! -d /usr/share/games/fortunes ]; then
  echo "reproduce_mixed.sh: copy_text reads Debian's fortunes; install it with" \
       "'bash scripts/install_deps.sh'" >&2
  exit 2
fi

# shellcheck source=lib/reproduce.sh
source "$(dirname "$0")/lib/reproduce.sh"
reproduce_setup mixed "$default_folder"
config=$root/configs/transformer/copy_text.json

lr_grid=(0.0003 0.001 0.003 0.01)
quick_lr=0.001

# arm_flags SIZE ARM: the --set flags of ARM at SIZE (the model and the padding of the header).
# Each flag is one word; the hybrid's list is single-quoted for the shell line add_run writes.
arm_flags() {
  local size=$1 arm=$2 width=64 depth=2 heads=2
  if [ "$size" = d128 ]; then width=128 depth=4 heads=4; fi
  case $arm in
    convolution) [ "$size" = d64 ] && width=80 || width=152 ;;
  esac
  local flags="--set model.width=$width --set model.depth=$depth --set layer.heads=$heads"
  case $arm in
    attention)
      flags+=" --set layer.mixer=attention"
      if [ "$size" = d64 ]; then
        flags+=" --set layer.rank=97"
      else
        flags+=" --set layer.rank=64"
      fi ;;
    convolution) flags+=" --set layer.mixer=convolution" ;;
    hybrid)
      if [ "$size" = d64 ]; then
        flags+=" --set 'layer.mixer=[\"attention\",\"convolution\"]' --set layer.rank=193"
      else
        flags+=" --set 'layer.mixer=[\"attention\",\"attention\",\"convolution\",\"convolution\"]'"
        flags+=" --set layer.rank=129"
      fi ;;
    universal) flags+=" --set layer.mixer=universal" ;;
    universal_g05) flags+=" --set layer.mixer=universal --set layer.gate_init=0.5" ;;
    universal_rankn) flags+=" --set layer.mixer=universal --set layer.rank=128" ;;
    distance) flags+=" --set layer.mixer=distance" ;;
  esac
  echo "$flags"
}
# lr_flags LR: the rate, decaying by cosine to a tenth (the config's schedule); the budget.
lr_flags() {
  local final flags
  final=$(awk "BEGIN { print $1 / 10 }")
  flags="--set train.lr=$1 --set train.lr_final=$final"
  [ "$mode" = quick ] && flags+=" --set train.steps=$quick_steps"
  echo "$flags"
}

collect() {
  mkdir -p "$results/runs"
  "$ufl" collect "$results/runs" --out "$results/runs.csv" > /dev/null
}
# rate_in FILE SIZE ARM: the rate FILE (the report's --tuned or --extend output) holds.
rate_in() {
  awk -v size="$2" -v arm="$3" '$1 == size && $2 == arm { print $3 }' "$1" 2> /dev/null
}

budget=4000
[ "$mode" = quick ] && budget=$quick_steps
echo "copy_text comparison ($mode mode): sizes $sizes; arms $arms; parts $parts;" \
     "stopping rule: the fixed budget of $budget steps, final validation loss"

if [[ " $parts " == *" tune "* ]]; then
  for size in $sizes; do
    for arm in $arms; do
      for lr in "${lr_grid[@]}"; do
        add_run "tune-$size-$arm-lr$lr" "$config" 100 \
          "$(arm_flags "$size" "$arm") $(lr_flags "$lr")"
      done
    done
  done
  run_part "tune (seed 100, the rate grid ${lr_grid[*]})"
  # One step beyond an edge, decided from the grid alone (so a rerun extends nothing more).
  collect
  "$python" "$root/scripts/mixed_report.py" --extend "$results/runs" > "$results/extend_lr.tsv"
  for size in $sizes; do
    for arm in $arms; do
      lr=$(rate_in "$results/extend_lr.tsv" "$size" "$arm")
      [ -n "$lr" ] || continue
      add_run "tune-$size-$arm-lr$lr" "$config" 100 \
        "$(arm_flags "$size" "$arm") $(lr_flags "$lr")"
    done
  done
  run_part "tune, one step beyond the grid's edge ($(wc -l < "$results/extend_lr.tsv") arms)"
  collect
  "$python" "$root/scripts/mixed_report.py" --tuned "$results/runs" > "$results/tuned_lr.tsv"
fi

# tuned_lr SIZE ARM: the rate the tune part chose, or in quick mode the config's.
tuned_lr() {
  if [ "$mode" = quick ]; then
    echo "$quick_lr"
  else
    rate_in "$results/tuned_lr.tsv" "$1" "$2"
  fi
}
need_rate() {
  [ -n "$3" ] || {
    echo "reproduce_mixed.sh: no tuned rate for $1/$2; run the tune part first (PARTS=tune)" >&2
    exit 1
  }
}

if [[ " $parts " == *" compare "* ]]; then
  seeds="1 2 3"
  [ "$mode" = quick ] && seeds=1
  for size in $sizes; do
    for arm in $arms; do
      lr=$(tuned_lr "$size" "$arm")
      need_rate "$size" "$arm" "$lr"
      for seed in $seeds; do
        add_run "$size-$arm-s$seed" "$config" "$seed" \
          "$(arm_flags "$size" "$arm") $(lr_flags "$lr")"
      done
    done
  done
  [ "$mode" = quick ] || run_part "compare (seeds 1-3 at the tuned rates)"
fi

if [[ " $parts " == *" control "* ]] || [ "$mode" = quick ]; then
  control_arms=$arms
  [ "$mode" = quick ] && control_arms=${ARMS:-attention convolution}
  for size in $sizes; do
    for arm in $control_arms; do
      lr=$(tuned_lr "$size" "$arm")
      need_rate "$size" "$arm" "$lr"
      add_run "control-$size-$arm-s1" "$config" 1 \
        "$(arm_flags "$size" "$arm") $(lr_flags "$lr") --set dataset.copy_source=shuffled"
    done
  done
  run_part "$([ "$mode" = quick ] && echo "quick mode (seed 1, $quick_steps steps, lr 1e-3)" ||
             echo "control (copy_source=shuffled, seed 1)")"
fi

collect
"$python" "$root/scripts/mixed_report.py" "$results/runs" "$results"

echo
echo "runs:    $results/runs/"
echo "tables:  $results/tables.md"
echo "figure:  $results/fig_mixed.png (and .svg)"
