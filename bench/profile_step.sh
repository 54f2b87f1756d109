#!/usr/bin/env bash
# Where a transformer training step's time goes (issue: speed at the GEMM peak): samples
# ufl_transformer_bench with `perf` at one thread and sorts the samples into kinds of work,
# GEMM kernels, their copies of B into panels (per product, or once per step for the weights in
# the fused ops' prepare_forward/prepare_backward, and per chunk of dY in the weight gradients),
# the optimizer, GELU, norms, softmax and scores, the cross-entropy, memory traffic (memset,
# memmove, transposes, concatenation), the kernel, and the rest; prints a Markdown table.
#
#   bash bench/profile_step.sh [--mixer attention|universal] [--seconds S] [--set key=value …]
#
# perf samples on-CPU time per function (inlined helpers count as their caller), so the shares
# stay meaningful when other work shares the machine, unlike times. The first 2 s (data and
# model set-up) are not sampled. Needs perf (Debian: linux-perf) and build/bench/ufl_transformer_bench.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${UFL_BUILD_DIR:-$root/build}
mixer=attention seconds=10 sets=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --mixer) mixer=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --set) sets+=(--set "$2"); shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "profile_step.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
command -v perf > /dev/null || { echo "profile_step.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
bench=$build/bench/ufl_transformer_bench
[ -x "$bench" ] || cmake --build "$build" --target ufl_transformer_bench > /dev/null
data=$(mktemp)
trap 'rm -f "$data"' EXIT
perf record -q -F 999 -D 2000 -o "$data" -- "$bench" --config "$root/configs/transformer/text.json" \
  --set layer.mixer="$mixer" "${sets[@]}" --threads 1 --seconds "$seconds" > /dev/null 2>&1
perf report -i "$data" --stdio --sort symbol 2> /dev/null | awk -v mixer="$mixer" '
  /^#/ || NF == 0 { next }
  {
    share = $1; sub(/%/, "", share); symbol = $0; sub(/^ *[0-9.]+% *\[[.k]\] */, "", symbol); sub(/[[:space:]-]+$/, "", symbol)
    kind = "other"
    if (symbol ~ /gemm|gebp|gemv|small_gemm|batch_product|causal_product/) kind = "GEMM kernels"
    else if (symbol ~ /pack_panels|pack_weight|add_transposed_product|prepare_forward|prepare_backward/) kind = "packing B into panels"
    else if (symbol ~ /Adam/) kind = "optimizer (AdamW)"
    else if (symbol ~ /gelu/) kind = "GELU"
    else if (symbol ~ /norm_(forward|backward)/) kind = "layer norms"
    else if (symbol ~ /softmax|score_kernel|score_core|expf|exp/) kind = "scores and softmax"
    else if (symbol ~ /cross_entropy/) kind = "cross-entropy"
    else if (symbol ~ /memset|memmove|memcpy|transpose|Concat|column_sums|sum_over_batch/) kind = "memory traffic and sums"
    else if ($0 ~ /\[k\]/) kind = "operating system"
    total[kind] += share; all += share
    if (kind == "other" && share >= 0.5) others = others sprintf(" %s (%.1f%%);", substr(symbol, 1, 60), share)
  }
  END {
    printf "| %s step, 1 thread: kind of work | share of samples |\n|---|---|\n", mixer
    n = split("GEMM kernels|packing B into panels|optimizer (AdamW)|GELU|layer norms|scores and softmax|cross-entropy|memory traffic and sums|operating system|other", order, "|")
    for (i = 1; i <= n; i++) printf "| %s | %.1f %% |\n", order[i], total[order[i]] * 100 / all
    if (others != "") printf "\nOther functions at 0.5 %% or more:%s\n", others
  }'
