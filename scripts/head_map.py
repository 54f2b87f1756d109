#!/usr/bin/python3
"""What each head of a transformer run became (docs/transformer.md §5), as one figure.

    /usr/bin/python3 scripts/head_map.py RUN_DIR [--out PATH_WITHOUT_EXTENSION]

Reads RUN_DIR/metrics.json (layers[l].heads[k]: the scores, the kind and "mean_M", the path of
the head's mean mixing matrix M̄ in heads/) and draws a grid of blocks (rows) x heads (columns),
each head's M̄ on one colour scale per panel (its colour bar beside it; colour_scale() says how
it is chosen), with the head's kind and three scores beneath: the mean attention distance d̄ in positions, the input dependence ι and,
for universal heads, the gate γ. Writes RUN_DIR/heads.png and .svg (or --out).
"""
import argparse
import json
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from panel_cap import MAX_BLOCKS, MAX_HEADS, note, shown  # noqa: E402


def colour_scale(matrix):
    """The colour map and limits for one head's M̄: a causal M̄'s first rows hold weights near 1
    (row 0 reads position 0 alone), which would leave every other entry pale; the scale stops at
    the 99th percentile of |M̄| below the diagonal (the first rows saturate). A diverging map
    centred on 0 where M̄ has negative entries (a universal head's linear branch)."""
    lower = np.abs(matrix[np.tril_indices_from(matrix, k=-1)])
    bound = float(np.quantile(lower, 0.99)) if lower.size else float(np.abs(matrix).max())
    bound = bound if bound > 0 else float(np.abs(matrix).max()) or 1.0
    if float(matrix.min()) < 0:
        return "RdBu_r", -bound, bound
    return "viridis", 0.0, bound


def draw_head(figure, axis, matrix, head, mixer, title, ylabel=True):
    """One head's M̄ with its colour bar, its kind and its scores beneath."""
    cmap, low, high = colour_scale(matrix)
    image = axis.imshow(matrix, cmap=cmap, vmin=low, vmax=high)
    figure.colorbar(image, ax=axis, fraction=0.046, pad=0.03)
    scores = f"d̄ {head.get('mean_distance', 0):.1f} · ι {head.get('iota', 0):.2f}"
    if "gamma" in head and mixer != "attention":
        scores += f" · γ {head['gamma']:.3f}"  # heads start at 0.99 and move in the 3rd decimal
    axis.set_title(title, fontsize=9)
    axis.set_xlabel(f"key position j\n{head.get('kind', '?')}: {scores}", fontsize=8)
    if ylabel:
        axis.set_ylabel("query position i", fontsize=8)
    axis.tick_params(labelsize=7)


def hybrid(layers):
    """Whether the heads are of more than one mixer (metrics.json names each head's)."""
    return len({head.get("mixer") for layer in layers for head in layer["heads"]}) > 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run")
    parser.add_argument("--out", help="path without extension (default RUN/heads)")
    args = parser.parse_args()
    metrics = json.load(open(os.path.join(args.run, "metrics.json")))
    layers = [layer for layer in metrics.get("layers", []) if "heads" in layer]
    if not layers:
        raise SystemExit(f"{args.run}: metrics.json has no per-head analysis (transformer blocks)")
    blocks, heads = len(layers), max(len(layer["heads"]) for layer in layers)
    block_rows, head_columns = shown(blocks, MAX_BLOCKS), shown(heads, MAX_HEADS)
    rows, cols = len(block_rows), len(head_columns)
    # The title wrapped to the figure's width (about 10 characters an inch at this size), so that
    # a narrow grid of one or two heads keeps all of it, and the figure made taller by its lines.
    title = textwrap.fill(f"{metrics.get('mixer', '?')} heads: mean mixing matrix M̄ per block "
                          "and head (colour scale clipped at the 99th percentile below the "
                          "diagonal)", width=int(10 * (2.6 * cols + 0.6)))
    if "validation_loss" in metrics:
        title += f"\nvalidation loss {metrics['validation_loss']:.3f} nats/token"
    elif "test_mse" in metrics:
        title += f"\ntest MSE {metrics['test_mse']:.3f}"
    left_out = note(block_rows, blocks, head_columns, heads)
    if left_out:
        title += "\n" + left_out
    title_inches = 0.17 * (title.count("\n") + 1)
    height = 2.75 * rows + 0.5 + title_inches
    figure, axes = plt.subplots(rows, cols, figsize=(2.6 * cols + 0.6, height), squeeze=False)
    for row, l in enumerate(block_rows):
        layer = layers[l]
        for column, k in enumerate(head_columns):
            axis = axes[row][column]
            if k >= len(layer["heads"]):
                axis.axis("off")
                continue
            head = layer["heads"][k]
            matrix = np.load(os.path.join(args.run, head["mean_M"]))
            # A hybrid block's heads (docs/transformer.md §9) each name their own mixer.
            mixer = head.get("mixer", metrics.get("mixer"))
            panel = f"block {l + 1}, head {k + 1}" + (f" ({mixer})" if hybrid(layers) else "")
            draw_head(figure, axis, matrix, head, mixer, panel, ylabel=column == 0)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout(rect=(0, 0, 1, 1 - title_inches / height))
    out = args.out or os.path.join(args.run, "heads")
    for extension in ("png", "svg"):
        figure.savefig(f"{out}.{extension}", dpi=110)
    print(f"wrote {out}.png and {out}.svg")


if __name__ == "__main__":
    main()
