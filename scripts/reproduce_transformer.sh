#!/usr/bin/env bash
# Reproduces the transformer study (docs/transformer_study.md) with one command, from any directory:
# is the universal layer a useful transformer primitive, read against controls that must succeed.
#
#   scripts/reproduce_transformer.sh                 # the full study (several hours on 2 cores)
#   MODE=quick scripts/reproduce_transformer.sh      # one seed, no tuning (under 30 minutes)
#   SLURM=1 scripts/reproduce_transformer.sh         # submit the runs as a Slurm job array
#
# Tasks, each in 2-block transformers unless said (docs/transformer_study.md §1 gives every setting):
#   copy:   in-context copying (configs/transformer/copy.json), scored on the copied letters;
#   mqar:   multi-query associative recall at the control setting below;
#   depth:  Section 7's induction task (configs/transformer/induction.json) at the control setting;
#   text64, text128: character-level text (Debian's fortunes) at two model sizes, D = 64 (2 blocks
#           of 2 heads) and D = 128 (the reference configuration's model, 4 blocks of 4 heads), at
#           a constant learning rate after warm-up until the stopping rule
#           (docs/transformer_study.md §1) says it stopped improving (the budget below caps it).
# Mixers: universal, attention, linear, convolution, lowrank (and on text attention48, attention
# with the universal mixer's parameter count). Attention is the control: a task whose attention
# arm fails is reported as void, not as a "no" for the universal layer.
#
# Parts (PARTS, default "tune compare replicate"):
#   tune:    every mixer on every task at each learning rate of LR_GRID, on seed 100, which is
#            never reported; each mixer then trains at its best rate (the report prints the grid).
#   compare: every mixer on every task at its tuned rate, seeds 1-3 (depth: 1-10).
#   replicate: MQAR again on seeds 4-6, every mixer at the rate a revised rule picks from the same
#            grid (solved rates tie; then the one that learns earliest), declared before these
#            seeds ran (docs/transformer_study.md §3, scripts/transformer_study_report.py).
# Arms added for issue 39 (run only when TASKS names them or EXTRA_LR is set; the report reads
# them by name, scripts/transformer_study_report.py's docstring):
#   text64cos, text128cos: the text tasks at the reference configuration's schedule, warm-up then
#           cosine decay to a tenth over the same budget. Their tune part tries each mixer's best
#           constant rate (text64's or text128's, from tuned_lr.tsv: run those first) and one grid
#           step below it; compare trains seeds 1-3 at D = 64 and seed 1 at D = 128 (COS128_SEEDS).
#   EXTRA_LR="0.0001 0.00003": more rates for the tune part of the TASKS given (e.g. TASKS=mqar
#           PARTS=tune), for the mixers in EXTRA_LR_MIXERS (default: all), to extend a grid whose
#           chosen rate sits at its edge. Rerun compare and replicate afterwards if a rate changes
#           (into a fresh UFL_RESULTS, as their run names do not carry the rate).
# MODE=quick: seed 1 only, the tasks copy, mqar, depth and text64, no tune part: each mixer
# trains at the rate the full mode's tune part chose (QUICK_LR below, docs/transformer_study.md §4).
#
# Output (UFL_RESULTS, default results/transformer, or results/transformer-quick):
#   runs/<task>-<mixer>-s<seed>/, runs/tune-<task>-<mixer>-lr<lr>/   the run folders
#   logs/  one log per run;  runs.csv  every run's metrics;  tuned_lr.tsv  the chosen rates
#   tables.md   the controls, the grid, the comparison per task, the text table at both sizes
#   fig_text_loss, fig_text_seconds, fig_mqar, fig_copy, fig_depth, fig_heads (.png and .svg)
#
# Complete and diverged runs are skipped and interrupted ones resumed (ufl train --continue); a
# diverged run (exit 3) is a result, counted in the tables; any other failing run makes the script
# exit 1 before the report (scripts/lib/reproduce.sh). Each finished run prints a progress line
# with the time left.
#
# Env:
#   MODE=full|quick  (default full)
#   PARTS            "tune compare replicate" (default), or some of them
#   TASKS            the tasks to run (default: all of the mode's; text64cos and text128cos only
#                    when named)
#   EXTRA_LR, EXTRA_LR_MIXERS, COS128_SEEDS   the added arms above
#   JOBS=N           parallel runs (default: nproc); each run uses one thread
#   SLURM=1          submit the runs that are not done as a Slurm job array
#                    (scripts/sweeps/slurm_array.sh; SBATCH_ARGS, ARRAY_LIMIT as there) and exit;
#                    run the script again when the jobs have ended, to continue or report
#   UFL_BIN=path     use this ufl binary and do not build
#   UFL_EXTRA_ARGS   extra flags for every `ufl train`; then UFL_RESULTS is required
#   UFL_RESULTS=dir  output folder
#   PYTHON=path      python with numpy+matplotlib (/usr/bin/python3)
set -euo pipefail
# shellcheck source=lib/arguments.sh
source "$(dirname "$0")/lib/arguments.sh"
no_arguments "$@"

# shellcheck source=lib/reproduce.sh
source "$(dirname "$0")/lib/reproduce.sh"
mode=${MODE:-full}
case $mode in
  full) default_folder=results/transformer ;;
  quick) default_folder=results/transformer-quick ;;
  *) echo "reproduce_transformer.sh: MODE must be full or quick, got '$mode'" >&2; exit 2 ;;
esac
reproduce_setup transformer "$default_folder"

# The settings of each task, fixed before the compared runs (docs/transformer_controls.md says how the
# controls' settings were found, on seeds 11-13 and 101, which are never reported).
lr_grid=(0.0003 0.001 0.003 0.01)
mixers=(universal attention linear convolution lowrank)
declare -A task_config task_flags
task_config[copy]=$root/configs/transformer/copy.json
task_flags[copy]=""
task_config[mqar]=$root/configs/transformer/mqar.json
task_flags[mqar]=""  # the config is the control setting (docs/transformer_controls.md §2)
task_config[depth]=$root/configs/transformer/induction.json
task_flags[depth]="--set dataset.train_size=65536 --set train.steps=6000"
text_common="--set train.warmup_steps=100 --set train.eval_every=250"
task_config[text64]=$root/configs/transformer/text.json
task_flags[text64]="--set model.width=64 --set model.depth=2 --set layer.heads=2 --set train.steps=8000 $text_common"
task_config[text128]=$root/configs/transformer/text.json
task_flags[text128]="--set train.steps=6000 $text_common"
# The cosine arms: the same model, data and budget; only the schedule differs (lr_flags below).
task_config[text64cos]=${task_config[text64]}
task_flags[text64cos]=${task_flags[text64]}
task_config[text128cos]=${task_config[text128]}
task_flags[text128cos]=${task_flags[text128]}
# The tune part trains text for a shorter budget (the rule's first check is at step 2000).
tune_steps_text=2000
# QUICK_LR: the rates the full mode's tune part chose on 2026-11-27 (results/transformer/
# tuned_lr.tsv; the grid is in docs/transformer/tune.md), MQAR's at its control setting (blocks
# without MLP).
declare -A quick_lr=(
  [copy-attention]=0.001 [copy-convolution]=0.01 [copy-linear]=0.0003 [copy-lowrank]=0.001 [copy-universal]=0.001
  [mqar-attention]=0.003 [mqar-convolution]=0.001 [mqar-linear]=0.0003 [mqar-lowrank]=0.001 [mqar-universal]=0.0003
  [depth-attention]=0.003 [depth-convolution]=0.001 [depth-linear]=0.001 [depth-lowrank]=0.003 [depth-universal]=0.003
  [text64-attention]=0.003 [text64-convolution]=0.003 [text64-linear]=0.003 [text64-lowrank]=0.003 [text64-universal]=0.003
)

if [ "$mode" = quick ]; then
  tasks=${TASKS:-copy mqar depth text64}
  parts=compare
else
  tasks=${TASKS:-copy mqar depth text64 text128}
  parts=${PARTS:-tune compare replicate}
fi
for task in $tasks; do
  [ -n "${task_config[$task]:-}" ] || {
    echo "reproduce_transformer.sh: no task '$task' (TASKS: copy mqar depth text64 text128" \
         "text64cos text128cos)" >&2
    exit 2
  }
done
if [ ! -d /usr/share/games/fortunes ] && [[ " $tasks " == *" text"* ]]; then
  echo "reproduce_transformer.sh: the text tasks read Debian's fortunes; install it with" \
       "'bash scripts/install_deps.sh' (or set TASKS without text64 and text128)" >&2
  exit 2
fi

# The mixers of a task: on text also attention48, attention with query/key rank 48, the
# universal mixer's parameter count within 0.2 % at D = 128 (so that "better" is not "bigger").
# On mqar also attention_search, attention at the rate the control's search used (1e-3, seeds
# 11-13 and 101), not tuned: an arm added after the grid's rule chose 3e-3 (by one query in
# 2048), where the lookup comes late, and attention failed seed 3 there (docs/transformer_study.md §3; the report marks it post
# hoc).
task_mixers() {
  case $1 in
    text128 | text128cos) echo "${mixers[*]} attention48" ;;
    mqar) echo "${mixers[*]} attention_search" ;;
    *) echo "${mixers[*]}" ;;
  esac
}
search_lr=0.001
# mixer_flags MIXER: the --set flags that make MIXER.
mixer_flags() {
  case $1 in
    attention48) echo "--set layer.mixer=attention --set layer.rank=48" ;;
    attention_search) echo "--set layer.mixer=attention" ;;
    *) echo "--set layer.mixer=$1" ;;
  esac
}
# lr_flags TASK LR: the learning rate, constant after warm-up on text, decaying to a tenth on the
# other tasks (their configs' rule) and on the text tasks' cosine arms.
lr_flags() {
  case $1 in
    text*cos) echo "--set train.lr=$2 --set train.lr_final=$(awk "BEGIN { print $2 / 10 }")" ;;
    text*) echo "--set train.lr=$2 --set train.lr_final=$2" ;;
    *) echo "--set train.lr=$2 --set train.lr_final=$(awk "BEGIN { print $2 / 10 }")" ;;
  esac
}

# rate_in FILE TASK MIXER: the rate FILE (the report's --tuned output) holds for TASK and MIXER.
rate_in() {
  awk -v task="$2" -v mixer="$3" '$1 == task && $2 == mixer { print $3 }' "$1" 2> /dev/null
}
# tune_rates TASK MIXER: the rates the tune part tries. The grid, and EXTRA_LR for the mixers in
# EXTRA_LR_MIXERS (default all); for a cosine arm, the constant arm's chosen rate and the grid's
# step below it (nothing when the constant arm has no tuned rate yet).
tune_rates() {
  if [[ $1 == text*cos ]]; then
    local best
    best=$(rate_in "$results/tuned_lr.tsv" "${1%cos}" "$2")
    [ -n "$best" ] || return 0
    awk -v best="$best" -v grid="${lr_grid[*]}" 'BEGIN {
      n = split(grid, g, " "); below = ""
      for (i = 1; i <= n; i++) if (g[i] + 0 == best + 0 && i > 1) below = g[i - 1]
      print best, below }'
    return 0
  fi
  echo "${lr_grid[@]}"
  if [ -n "${EXTRA_LR:-}" ] && [[ " ${EXTRA_LR_MIXERS:-$2} " == *" $2 "* ]]; then
    echo "$EXTRA_LR"
  fi
}

if [[ " $parts " == *" tune "* ]]; then
  for task in $tasks; do
    steps_flag=""
    [[ $task == text* ]] && steps_flag="--set train.steps=$tune_steps_text"
    for mixer in $(task_mixers "$task"); do
      [ "$mixer" = attention_search ] && continue  # its rate is fixed, not tuned
      rates=$(tune_rates "$task" "$mixer")
      [ -n "$rates" ] || {
        echo "reproduce_transformer.sh: $task tries the rate ${task%cos} chose for $mixer; run" \
             "${task%cos}'s tune part first (TASKS=${task%cos} PARTS=tune)" >&2
        exit 1
      }
      for lr in $rates; do
        add_run "tune-$task-$mixer-lr$lr" "${task_config[$task]}" 100 \
          "${task_flags[$task]} $(mixer_flags "$mixer") $(lr_flags "$task" "$lr") $steps_flag"
      done
    done
  done
  run_part "tune (seed 100, learning-rate grid)"
  "$ufl" collect "$results/runs" --out "$results/runs.csv" > /dev/null
  "$python" "$root/scripts/transformer_study_report.py" --tuned "$results/runs" \
    > "$results/tuned_lr.tsv"
fi

# tuned_lr TASK MIXER: the rate the tune part chose, or in quick mode QUICK_LR's.
tuned_lr() {
  if [ "$2" = attention_search ]; then
    echo "$search_lr"
  elif [ "$mode" = quick ]; then
    echo "${quick_lr[$1-$2]}"
  else
    rate_in "$results/tuned_lr.tsv" "$1" "$2"
  fi
}

if [[ " $parts " == *" compare "* ]]; then
  for task in $tasks; do
    seeds="1 2 3"
    [ "$task" = depth ] && seeds="1 2 3 4 5 6 7 8 9 10"
    [ "$task" = text128cos ] && seeds=${COS128_SEEDS:-1}
    [ "$mode" = quick ] && seeds=1
    for mixer in $(task_mixers "$task"); do
      lr=$(tuned_lr "$task" "$mixer")
      [ -n "$lr" ] || {
        echo "reproduce_transformer.sh: no tuned rate for $task/$mixer; run the tune part" \
             "first (PARTS=tune)" >&2
        exit 1
      }
      for seed in $seeds; do
        add_run "$task-$mixer-s$seed" "${task_config[$task]}" "$seed" \
          "${task_flags[$task]} $(mixer_flags "$mixer") $(lr_flags "$task" "$lr")"
      done
    done
  done
  run_part "transformer study ($mode mode)"
fi

if [[ " $parts " == *" replicate "* && " $tasks " == *" mqar "* ]]; then
  compgen -G "$results/runs/tune-mqar-*" > /dev/null || {
    echo "reproduce_transformer.sh: the replication picks its rates from MQAR's grid; run the" \
         "tune part first (PARTS=tune)" >&2
    exit 1
  }
  "$ufl" collect "$results/runs" --out "$results/runs.csv" > /dev/null
  "$python" "$root/scripts/transformer_study_report.py" --tuned-replication "$results/runs" \
    > "$results/tuned_lr_replication.tsv"
  for mixer in "${mixers[@]}"; do
    lr=$(rate_in "$results/tuned_lr_replication.tsv" mqar "$mixer")
    [ -n "$lr" ] || {
      echo "reproduce_transformer.sh: no tuned rate for mqar/$mixer; run the tune part first" \
           "(PARTS=tune)" >&2
      exit 1
    }
    for seed in 4 5 6; do
      add_run "mqar-$mixer-s$seed" "${task_config[mqar]}" "$seed" \
        "${task_flags[mqar]} $(mixer_flags "$mixer") $(lr_flags mqar "$lr")"
    done
  done
  run_part "MQAR replication (seeds 4-6, the revised rule)"
fi

"$ufl" collect "$results/runs" --out "$results/runs.csv" > /dev/null
"$python" "$root/scripts/transformer_study_report.py" "$results/runs" "$results"

echo
echo "runs:    $results/runs/"
echo "tables:  $results/tables.md"
echo "figures: $results/fig_*.png (and .svg)"
