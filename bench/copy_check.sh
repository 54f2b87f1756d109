#!/usr/bin/env bash
# In-context copying, ufl against the PyTorch peer (docs/transformer.md §7): the copying corpus of
# bench/copy_corpus.py, 2 blocks × 2 heads of width 64, n = 64, batch 16, lr 1e-3 → 1e-4 after
# 100 warm-up steps, AdamW (0.9, 0.99) with weight decay 0.1, clip 1, one thread per run.
#   1. the side-by-side test: the peer replays ufl's universal seed-1 run from its initial
#      parameters on its minibatches; their losses must agree to 1e-4 over the first 50 steps;
#   2. the table: validation loss of ufl and of the peer (its own initialisation and batches),
#      attention and universal (and ufl's linear mixer, which cannot copy), seeds 1-3.
# Resumable: finished runs are kept (ufl --continue; the peer's JSON files).
#   bash bench/copy_check.sh [STEPS]      (default 4000; results/copy-check/)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-4000}
out=results/copy-check
mkdir -p "$out"
[ -x build/ufl ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build -j "$(nproc)" --target ufl; }
corpus="$out/copy.txt"
[ -f "$corpus" ] || /usr/bin/python3 bench/copy_corpus.py "$corpus"
sets=(--set dataset.path="$corpus" --set layer.heads=2 --set model.depth=2 --set model.width=64
      --set train.batch_size=16 --set train.steps="$steps" --set train.eval_every=500)
peer_args=(--corpus "$corpus" --n 64 --width 64 --depth 2 --heads 2 --batch 16 --steps "$steps"
           --eval-every 500 --threads 1)
jobs=()
for mixer in attention universal linear; do
  for seed in 1 2 3; do
    jobs+=("build/ufl train configs/transformer/text.json ${sets[*]} --set layer.mixer=$mixer --seed $seed --out $out/ufl-$mixer-s$seed --threads 1 --continue -q")
    peer="$out/torch-$mixer-s$seed.json"
    [ "$mixer" = linear ] || [ -f "$peer" ] ||
      jobs+=("/usr/bin/python3 bench/torch_peer.py transformer --train --mixer $mixer --seed $seed ${peer_args[*]} --out $peer.partial >/dev/null 2>&1 && mv $peer.partial $peer")
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P 2 -I{} bash -c '{}'
replay="$out/replay-universal-s1.json"
if [ ! -f "$replay" ]; then
  /usr/bin/python3 bench/torch_peer.py transformer --replay "$out/ufl-universal-s1" \
    --compare-steps 50 --tolerance 1e-4 --out "$replay.partial" 2> "$out/replay.log" ||
    { tail -1 "$out/replay.log"; exit 1; }
  mv "$replay.partial" "$replay"
fi
/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
replay = json.load(open(f"{out}/replay-universal-s1.json"))
print(f"side by side (universal, seed 1, same initial parameters and minibatches): max |torch − ufl| "
      f"loss over the first {replay['compare_steps']} steps {replay['max_loss_difference']:.1e}; "
      f"after {replay['steps']} steps validation loss torch {replay['validation_loss']:.4f}, ufl "
      f"{replay['curve'][-1]['ufl_val_loss']:.4f}")
print()
print("| mixer | ufl seeds 1 / 2 / 3 | mean | torch peer seeds 1 / 2 / 3 | mean | ufl γ at the end (per head) |")
print("|---|---|---|---|---|---|")
for mixer in ["attention", "universal", "linear"]:
    ufl, peer, gammas = [], [], []
    for seed in (1, 2, 3):
        metrics = json.load(open(f"{out}/ufl-{mixer}-s{seed}/metrics.json"))
        ufl.append(metrics["validation_loss"])
        gammas += [head["gamma"] for layer in metrics["layers"] for head in layer["heads"]
                   if "gamma" in head and mixer == "universal"]
        try:
            peer.append(json.load(open(f"{out}/torch-{mixer}-s{seed}.json"))["validation_loss"])
        except FileNotFoundError:
            pass
    cells = " / ".join(f"{v:.3f}" for v in ufl)
    peer_cells = " / ".join(f"{v:.3f}" for v in peer) or "—"
    peer_mean = f"{statistics.mean(peer):.3f}" if peer else "—"
    gamma = f"{min(gammas):.3f} – {max(gammas):.3f}" if gammas else "—"
    print(f"| {mixer} | {cells} | {statistics.mean(ufl):.3f} | {peer_cells} | {peer_mean} | {gamma} |")
PY
