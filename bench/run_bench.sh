#!/usr/bin/env bash
# The ufl training-step benchmark: ufl (ufl_step_bench) against the same layer in PyTorch
# (bench/torch_peer.py, Debian's python3-torch through /usr/bin/python3), side by side.
#
#   bench/run_bench.sh              n ∈ {32, 64, 128, 256} × threads ∈ {1, 2}; table + CSV
#   bench/run_bench.sh --scaling    n ∈ {16, …, 512}, best thread count; table + CSV + PNG plot
#   bench/run_bench.sh --mixers     ufl only: every mixer (layer.mixer) beside the universal layer
#                                   at the same n, d and threads, n ∈ {32, 64, 128}; table + CSV
#   bench/run_bench.sh --depth      stacks (docs/section7.md): L ∈ {1, 2, 3} at n = 32, d = 16,
#                                   D = d plain and D = 2d residual, ufl only; table
#
# ufl runs each point with both kernels of the universal layer (dense and structured, see
# bench/README.md); the tables also show which one `ufl train` chooses there and its speed-up.
#
# Options: --seconds S     measuring time per point and implementation (default 1.5)
#          --threads "1 2" thread counts
#          --sizes "32 64" values of n
#          --quick         --seconds 0.3 (a smoke test; numbers are rough)
#          --no-torch      ufl only
#          --no-build      do not rebuild the two C++ targets
#          --mixer-list "universal fourier"   the mixers of --mixers (default: all six)
#          --passive       OMP_WAIT_POLICY=passive for both sides (idle threads sleep instead of
#                          spinning; on a busy machine this avoids pathological 2-thread times,
#                          but it is not how `ufl train` runs by default)
# Environment: UFL_BUILD_DIR (default <repo>/build), PYTHON (default /usr/bin/python3).
# Results go to bench/results/. See bench/README.md for what is measured.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${UFL_BUILD_DIR:-$root/build}
python=${PYTHON:-/usr/bin/python3}
results=$here/results

mode=bench
seconds=1.5
threads="1 2"
sizes=""
kernels="dense structured"
torch=1
rebuild=1
mixers="universal attention convolution fourier lowrank linear"
while [[ $# -gt 0 ]]; do
  case $1 in
    --scaling) mode=scaling ;;
    --mixers) mode=mixers; torch=0 ;;
    --mixer-list) mixers=$2; shift ;;
    --depth) mode=depth ;;
    --seconds) seconds=$2; shift ;;
    --threads) threads=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --kernels) kernels=$2; shift ;;
    --quick) seconds=0.3 ;;
    --no-torch) torch=0 ;;
    --no-build) rebuild=0 ;;
    --passive) export OMP_WAIT_POLICY=passive ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "run_bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z $sizes ]]; then
  if [[ $mode == scaling ]]; then sizes="16 32 64 128 256 512"; else sizes="32 64 128 256"; fi
  if [[ $mode == mixers ]]; then sizes="32 64 128"; fi
fi
# Reference settings: d = 16 at n = 32 (the spec's defaults), d = 8 otherwise. The scaling
# curve keeps d = 8 at every n so that only n changes.
channels_for() {
  if [[ $mode != scaling && $1 == 32 ]]; then echo 16; else echo 8; fi
}
# torch: both ways of doing the homogeneous coordinates in the table; in the scaling run only
# the row lookup (the faster one, and what ufl does) to keep the large-n points affordable.
if [[ $mode == scaling ]]; then torch_variant=lookup; else torch_variant=both; fi

[[ $mode == depth ]] && torch=0  # torch_peer.py has no stack
if [[ $torch == 1 ]] && ! "$python" -c 'import torch, numpy' 2>/dev/null; then
  echo "run_bench.sh: $python cannot import torch/numpy. Install Debian's PyTorch:" >&2
  echo "    apt-get install python3-torch python3-numpy     (or run with --no-torch)" >&2
  exit 1
fi

if [[ $rebuild == 1 ]]; then
  if [[ ! -f $build/CMakeCache.txt ]]; then cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release; fi
  cmake --build "$build" --target ufl_step_bench ufl_gemm_peak -j 2
fi
step_bench=$build/bench/ufl_step_bench
gemm_peak=$build/bench/ufl_gemm_peak
for exe in "$step_bench" "$gemm_peak"; do
  [[ -x $exe ]] || { echo "run_bench.sh: $exe is missing (build it, or drop --no-build)" >&2; exit 1; }
done

mkdir -p "$results"
raw=$results/${mode}_raw.jsonl
: > "$raw"
load_now() { cut -d' ' -f1 /proc/loadavg; }
load_start=$(load_now)
if awk -v l="$load_start" 'BEGIN { exit !(l > 0.5) }'; then
  echo "warning: load average $load_start — the machine is busy; timings (2 threads above all) will be noisy" >&2
fi
machine_line() {
  local cpu
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
  printf '{"kind":"machine","cpu":"%s","cores":%s,"load_start":%s,"load_end":%s,"date":"%s","omp_wait_policy":"%s"}\n' \
    "$cpu" "$(nproc)" "$load_start" "$(load_now)" "$(date -u +%Y-%m-%dT%H:%MZ)" \
    "${OMP_WAIT_POLICY:-default}"
}

if [[ $mode == mixers ]]; then
  # Each mixer at its defaults (r = n for universal, attention and lowrank; w = 5 for
  # convolution), one after another at every point, so that load changes hit them alike.
  echo "== training step per mixer (~${seconds}s per point): $mixers" >&2
  for n in $sizes; do
    d=$(channels_for "$n")
    for t in $threads; do
      for mixer in $mixers; do
        "$step_bench" --mixer "$mixer" --n "$n" --d "$d" --batch 64 --threads "$t" \
          --seconds "$seconds" | tee -a "$raw" >&2 ||
          echo "warning: ufl failed for $mixer at n=$n threads=$t" >&2
      done
    done
  done
  machine_line >> "$raw"
  echo >&2
  "$python" "$here/report.py" mixers "$raw" "$results/mixers.csv" "$results/mixers.md"
  echo "wrote $results/mixers.csv, mixers.md and $(basename "$raw")" >&2
  exit 0
fi

if [[ $mode == depth ]]; then
  # The per-step cost of a stack: a 2-layer step should cost about two 1-layer steps.
  echo "== training step of a stack (n=32, d=16, batch 64, ~${seconds}s per point)" >&2
  for t in $threads; do
    for width_residual in "16 0" "32 1"; do
      read -r width residual <<<"$width_residual"
      for depth in 1 2 3; do
        "$step_bench" --n 32 --d 16 --batch 64 --threads "$t" --seconds "$seconds" \
          --depth "$depth" --width "$width" --residual "$residual" | tee -a "$raw" >&2
      done
    done
  done
  "$python" - "$raw" "$results/depth.md" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
base = {(r["threads"], r["width"]): r["ms_per_step"] for r in rows if r["depth"] == 1}
lines = ["| threads | stream | L | ms/step | × L=1 | GFLOP/s |", "|---|---|---|---|---|---|"]
for r in rows:
    stream = f"D={r['width']}" + (" residual" if r["residual"] else "")
    ratio = r["ms_per_step"] / base[(r["threads"], r["width"])]
    lines.append(f"| {r['threads']} | {stream} | {r['depth']} | {r['ms_per_step']:.3f} | "
                 f"{ratio:.2f} | {r['gflops']:.1f} |")
text = "\n".join(lines)
open(sys.argv[2], "w").write(text + "\n")
print(text)
PY
  echo "load average $load_start at the start, $(load_now) at the end; wrote $results/depth.md" >&2
  exit 0
fi

echo "== GEMM peak" >&2
for t in $threads; do
  "$gemm_peak" --threads "$t" | sed 's/^{/{"kind":"gemm","impl":"eigen",/' | tee -a "$raw" >&2
  if [[ $torch == 1 ]]; then
    "$python" "$here/torch_peer.py" --gemm-peak --threads "$t" | sed 's/^{/{"kind":"gemm",/' |
      tee -a "$raw" >&2
  fi
done
if [[ $torch == 1 ]] && grep -q '"kind":"gemm".*/blas/libblas.so' "$raw"; then
  echo "note: torch uses the netlib reference BLAS (Debian's libblas3), not an optimised one;" \
       "see bench/README.md" >&2
fi

echo "== training step ($mode, ~${seconds}s per point)" >&2
for n in $sizes; do
  d=$(channels_for "$n")
  for t in $threads; do
    for kernel in $kernels; do
      "$step_bench" --n "$n" --d "$d" --batch 64 --threads "$t" --seconds "$seconds" \
        --kernel "$kernel" | tee -a "$raw" >&2 ||
        echo "warning: ufl ($kernel) failed at n=$n threads=$t" >&2
    done
    if [[ $torch == 1 ]]; then
      "$python" "$here/torch_peer.py" --n "$n" --d "$d" --batch 64 --threads "$t" \
        --seconds "$seconds" --variant "$torch_variant" |
        tee -a "$raw" >&2 || echo "warning: torch failed at n=$n threads=$t" >&2
    fi
  done
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
printf '{"kind":"machine","cpu":"%s","cores":%s,"load_start":%s,"load_end":%s,"date":"%s","omp_wait_policy":"%s"}\n' \
  "$cpu" "$(nproc)" "$load_start" "$(load_now)" "$(date -u +%Y-%m-%dT%H:%MZ)" \
  "${OMP_WAIT_POLICY:-default}" >> "$raw"

echo >&2
if [[ $mode == scaling ]]; then
  "$python" "$here/report.py" scaling "$raw" "$results/scaling.csv" "$results/scaling.png" \
    "$results/scaling.md"
  echo "wrote $results/scaling.csv, scaling.png, scaling.md and $(basename "$raw")" >&2
else
  "$python" "$here/report.py" bench "$raw" "$results/step_bench.csv" "$results/latest.md"
  echo "wrote $results/step_bench.csv, latest.md and $(basename "$raw")" >&2
fi
