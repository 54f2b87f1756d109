#!/usr/bin/env bash
# The transformer training-step benchmark (docs/transformer.md §8): ufl (ufl_transformer_bench)
# against the same block in PyTorch (bench/torch_peer.py transformer --bench), in one run, at
#   reference  n = 64, D = 128, L = 4, h = 4, batch 12 (configs/transformer/text.json)
#   larger     n = 256, D = 256, L = 6, h = 8, batch 16
# for the mixers attention, universal and linear, at 1 and 2 threads, with the machine's GEMM
# peak (ufl_gemm_peak) beside each time. Writes bench/results/transformer.md and .csv.
#
# Options: --seconds S        measuring time per point and implementation (default 3)
#          --threads "1 2"    thread counts
#          --mixers "attention universal linear"
#          --configs "reference larger"
#          --quick            --seconds 0.5 (a smoke test; numbers are rough)
#          --no-torch         ufl only
#          --no-build         do not rebuild the C++ targets
# Environment: UFL_BUILD_DIR (default <repo>/build), PYTHON (default /usr/bin/python3).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${UFL_BUILD_DIR:-$root/build}
python=${PYTHON:-/usr/bin/python3}
results=$here/results

seconds=3
threads="1 2"
mixers="attention universal linear"
configs="reference larger"
torch=1
rebuild=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --seconds) seconds=$2; shift ;;
    --threads) threads=$2; shift ;;
    --mixers) mixers=$2; shift ;;
    --configs) configs=$2; shift ;;
    --quick) seconds=0.5 ;;
    --no-torch) torch=0 ;;
    --no-build) rebuild=0 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "run_transformer_bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [[ $torch == 1 ]] && ! "$python" -c 'import torch' 2>/dev/null; then
  echo "run_transformer_bench.sh: $python cannot import torch. Install Debian's PyTorch:" >&2
  echo "    UFL_WITH_TORCH=1 bash scripts/install_deps.sh     (or run with --no-torch)" >&2
  exit 1
fi
if [[ $rebuild == 1 ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target ufl_transformer_bench ufl_gemm_peak >/dev/null
fi

# The sizes of each configuration, as --set overrides of configs/transformer/text.json and as
# the peer's options.
ufl_sets() {
  case $1 in
    reference) echo "" ;;
    larger) echo "--set dataset.n=256 --set model.width=256 --set model.depth=6 --set layer.heads=8 --set train.batch_size=16" ;;
  esac
}
torch_sizes() {
  case $1 in
    reference) echo "--n 64 --width 128 --depth 4 --heads 4 --batch 12" ;;
    larger) echo "--n 256 --width 256 --depth 6 --heads 8 --batch 16" ;;
  esac
}

mkdir -p "$results"
raw=$results/transformer_raw.jsonl
: > "$raw"
for t in $threads; do
  "$build/bench/ufl_gemm_peak" --threads "$t" | sed 's/^{/{"impl":"gemm_peak",/' >> "$raw"
done
for config in $configs; do
  for mixer in $mixers; do
    for t in $threads; do
      echo "  $config $mixer, $t thread(s)" >&2
      # shellcheck disable=SC2046
      "$build/bench/ufl_transformer_bench" --config "$root/configs/transformer/text.json" \
        $(ufl_sets "$config") --set layer.mixer="$mixer" --threads "$t" --seconds "$seconds" |
        sed "s/^{/{\"config\":\"$config\",/" >> "$raw"
      if [[ $torch == 1 ]]; then
        # shellcheck disable=SC2046
        "$python" "$here/torch_peer.py" transformer --bench --mixer "$mixer" $(torch_sizes "$config") \
          --threads "$t" --seconds "$seconds" | sed "s/^{/{\"config\":\"$config\",/" >> "$raw"
      fi
    done
  done
done
"$python" "$here/transformer_report.py" "$raw" "$results/transformer.md" "$results/transformer.csv"
cat "$results/transformer.md"
