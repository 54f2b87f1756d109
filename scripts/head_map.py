#!/usr/bin/python3
"""What each head of a transformer run became (docs/transformer.md §5), as one figure.

    /usr/bin/python3 scripts/head_map.py RUN_DIR [--out PATH_WITHOUT_EXTENSION]

Reads RUN_DIR/metrics.json (layers[l].heads[k]: the scores, the kind and "mean_M", the path of
the head's mean mixing matrix M̄ in heads/) and draws a grid of blocks (rows) x heads (columns),
each head's M̄ on one colour scale per panel (its colour bar beside it), with the head's kind and
three scores beneath: the mean attention distance d̄ in positions, the input dependence ι and,
for universal heads, the gate γ. Writes RUN_DIR/heads.png and .svg (or --out).
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run")
    parser.add_argument("--out", help="path without extension (default RUN/heads)")
    args = parser.parse_args()
    metrics = json.load(open(os.path.join(args.run, "metrics.json")))
    layers = [layer for layer in metrics.get("layers", []) if "heads" in layer]
    if not layers:
        raise SystemExit(f"{args.run}: metrics.json has no per-head analysis (transformer blocks)")
    rows, cols = len(layers), max(len(layer["heads"]) for layer in layers)
    figure, axes = plt.subplots(rows, cols, figsize=(2.6 * cols + 0.6, 2.75 * rows + 0.9),
                                squeeze=False)
    for l, layer in enumerate(layers):
        for k in range(cols):
            axis = axes[l][k]
            if k >= len(layer["heads"]):
                axis.axis("off")
                continue
            head = layer["heads"][k]
            matrix = np.load(os.path.join(args.run, head["mean_M"]))
            # M̄ of a softmax head lies in [0, 1]; a linear branch can be negative: a diverging
            # map centred on 0 then.
            low, high = float(matrix.min()), float(matrix.max())
            if low < 0:
                bound = max(-low, high)
                image = axis.imshow(matrix, cmap="RdBu_r", vmin=-bound, vmax=bound)
            else:
                image = axis.imshow(matrix, cmap="viridis", vmin=0, vmax=high if high > 0 else 1)
            figure.colorbar(image, ax=axis, fraction=0.046, pad=0.03)
            scores = f"d̄ {head.get('mean_distance', 0):.1f} · ι {head.get('iota', 0):.2f}"
            if "gamma" in head and metrics.get("mixer") != "attention":
                scores += f" · γ {head['gamma']:.2f}"
            axis.set_title(f"block {l + 1}, head {k + 1}", fontsize=9)
            axis.set_xlabel(f"key position j\n{head.get('kind', '?')}: {scores}", fontsize=8)
            if k == 0:
                axis.set_ylabel("query position i", fontsize=8)
            axis.tick_params(labelsize=7)
    title = f"{metrics.get('mixer', '?')} heads: mean mixing matrix M̄\nper block and head"
    if "validation_loss" in metrics:
        title += f", validation loss {metrics['validation_loss']:.3f} nats/token"
    elif "test_mse" in metrics:
        title += f", test MSE {metrics['test_mse']:.3f}"
    figure.suptitle(title, fontsize=11)
    figure.tight_layout(rect=(0, 0, 1, 0.94))
    out = args.out or os.path.join(args.run, "heads")
    for extension in ("png", "svg"):
        figure.savefig(f"{out}.{extension}", dpi=110)
    print(f"wrote {out}.png and {out}.svg")


if __name__ == "__main__":
    main()
