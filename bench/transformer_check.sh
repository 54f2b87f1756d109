#!/usr/bin/env bash
# The independent check of docs/transformer.md §6: ufl's validation loss after the reference
# configuration's 2000 steps against the PyTorch peer's (bench/torch_peer.py transformer), for the
# attention and universal mixers, seeds 1-3 each, on the same corpus; one thread per run, two
# runs at a time. Resumable: finished runs are kept (ufl --continue; the peer's JSON files).
#   bash bench/transformer_check.sh [STEPS]      (default 2000; results/transformer-check/)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-2000}
out=results/transformer-check
mkdir -p "$out"
[ -x build/ufl ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build -j "$(nproc)" --target ufl; }
jobs=()
for mixer in attention universal; do
  for seed in 1 2 3; do
    jobs+=("build/ufl train configs/transformer/text.json --set layer.mixer=$mixer --set train.steps=$steps --seed $seed --out $out/ufl-$mixer-s$seed --threads 1 --continue -q")
    peer="$out/torch-$mixer-s$seed.json"
    [ -f "$peer" ] || jobs+=("/usr/bin/python3 bench/torch_peer.py transformer --train --mixer $mixer --seed $seed --steps $steps --threads 1 --out $peer.partial >/dev/null 2>&1 && mv $peer.partial $peer")
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P 2 -I{} bash -c '{}'
/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys, os
out = sys.argv[1]
print("| mixer | ufl val loss (nats) | torch val loss (nats) | difference | within 0.05 | ufl ms/step | torch ms/step | parameters |")
print("|---|---|---|---|---|---|---|---|")
for mixer in ["attention", "universal"]:
    ufl, peer, ufl_ms, peer_ms, params = [], [], [], [], None
    for seed in (1, 2, 3):
        metrics = json.load(open(f"{out}/ufl-{mixer}-s{seed}/metrics.json"))
        manifest = json.load(open(f"{out}/ufl-{mixer}-s{seed}/manifest.json"))
        ufl.append(metrics["validation_loss"])
        ufl_ms.append(1e3 / manifest["steps_per_second"])
        params = metrics["parameters"]
        result = json.load(open(f"{out}/torch-{mixer}-s{seed}.json"))
        peer.append(result["validation_loss"])
        peer_ms.append(result["ms_per_step"])
    u, p = statistics.mean(ufl), statistics.mean(peer)
    print(f"| {mixer} | {u:.4f} ± {statistics.stdev(ufl):.4f} | {p:.4f} ± {statistics.stdev(peer):.4f} "
          f"| {u - p:+.4f} | {'yes' if abs(u - p) <= 0.05 else 'no'} | {statistics.mean(ufl_ms):.1f} "
          f"| {statistics.mean(peer_ms):.1f} | {params} |")
PY
