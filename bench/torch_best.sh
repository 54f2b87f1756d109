#!/usr/bin/env bash
# PyTorch at its best threading against ufl, at the transformer reference configuration
# (n = 64, D = 128, 4 blocks of 4 heads, batch 12): the peer (bench/torch_peer.py transformer
# --bench) over every combination of torch's intra-op threads and the BLAS's threads — 1×1, 1×2,
# 2×1, 2×2, and the defaults a user gets without setting anything (torch's intra-op pool and
# OpenBLAS each take every core) — and ufl (ufl_transformer_bench) at 1 and 2 threads; ufl is
# compared with the fastest of them. Writes bench/results/torch_best.md and torch_best.jsonl.
#
#   bench/torch_best.sh [--seconds S] [--mixers "attention universal"] [--no-build]
#
# Run it on an otherwise quiet machine. Environment: UFL_BUILD_DIR (default <repo>/build),
# PYTHON (default /usr/bin/python3).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${UFL_BUILD_DIR:-$root/build}
python=${PYTHON:-/usr/bin/python3}
seconds=3
mixers="attention universal"
rebuild=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --seconds) seconds=$2; shift ;;
    --mixers) mixers=$2; shift ;;
    --no-build) rebuild=0 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "torch_best.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "torch_best.sh: $python cannot import torch; apt-get install python3-torch" >&2
  exit 1
fi
if [[ $rebuild == 1 ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target ufl_transformer_bench >/dev/null
fi
raw=$here/results/torch_best.jsonl
: >"$raw"
for mixer in $mixers; do
  # torch's intra-op threads × BLAS threads; "0 default" is what a user gets without settings.
  for combo in "1 1" "1 2" "2 1" "2 2" "0 default"; do
    read -r intra blas <<<"$combo"
    echo "  torch $mixer: intra-op $intra, BLAS $blas" >&2
    env -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u MKL_NUM_THREADS \
      "$python" "$here/torch_peer.py" transformer --bench --mixer "$mixer" --threads "$intra" \
      --blas-threads "$blas" --seconds "$seconds" |
      sed "s/^{/{\"torch_intra\":\"$intra\",\"torch_blas\":\"$blas\",/" >>"$raw"
  done
  for t in 1 2; do
    echo "  ufl $mixer: $t thread(s)" >&2
    "$build/bench/ufl_transformer_bench" --config "$root/configs/transformer/text.json" \
      --set layer.mixer="$mixer" --threads "$t" --seconds "$seconds" | grep "^{" >>"$raw"
  done
done
"$python" - "$raw" "$here/results/torch_best.md" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
out = ["# PyTorch at its best threading against ufl (transformer reference configuration)", "",
       "ms per training step (median of the repeats); torch: intra-op threads × BLAS threads "
       "(0 × default: nothing set, as a user runs it).", "",
       "| mixer | torch 1×1 | 1×2 | 2×1 | 2×2 | default | torch best | ufl 1 thread | ufl 2 threads | ufl 2 threads vs torch best |",
       "|---|---|---|---|---|---|---|---|---|---|"]
for mixer in dict.fromkeys(r["mixer"] for r in rows):
    torch = {(r["torch_intra"], r["torch_blas"]): r["ms_per_step"] for r in rows
             if r.get("impl") == "torch" and r["mixer"] == mixer}
    ufl = {r["threads"]: r["ms_per_step"] for r in rows
           if r.get("impl") == "ufl" and r["mixer"] == mixer}
    combos = [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2"), ("0", "default")]
    best_combo = min(torch, key=torch.get)
    best = torch[best_combo]
    label = "default" if best_combo[0] == "0" else f"{best_combo[0]}×{best_combo[1]}"
    out.append(f"| {mixer} | " + " | ".join(f"{torch[c]:.1f}" for c in combos) +
               f" | {best:.1f} ({label}) | {ufl[1]:.1f} | {ufl[2]:.1f} | {best / ufl[2]:.2f}× |")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
