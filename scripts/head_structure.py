#!/usr/bin/python3
"""The seeds' measures of a transformer run's heads (docs/head_structure.md §2), as one figure.

    /usr/bin/python3 scripts/head_structure.py RUN_DIR [--out PATH_WITHOUT_EXTENSION]

Reads RUN_DIR/heads.json (written by `ufl train` and `ufl analyze` for next_token runs) and
draws four panels:
  1. seed 001, spectra: each head's mean singular values of M(X) over the windows, divided by
     the first, trained (one colour per block) and at initialisation (grey), beside the uniform
     causal average (black dashes); each head's median k99 marked with a dot on its curve;
  2. seed 001, the functional test: validation loss over the windows with every head's M
     truncated to rank k, against k, with the full model's loss and a band of +0.01 nats;
  3. seed 002: each head's distance-form gap (median over windows; 0 = its scores are exactly
     softmax(−‖q − k‖²/2)), with the 10th–90th percentile as a bar;
  4. seed 003: what Ω's leading rank-one part reads, per head: the share of its query (left) and
     key (right) vector in the token span, the position span and the bias coordinate.
Writes RUN_DIR/head_structure.png and .svg (or --out).
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from panel_cap import MAX_BLOCKS, MAX_HEADS, shown  # noqa: E402

READS = (("token", "tab:blue"), ("position", "tab:orange"), ("bias", "tab:gray"))


def heads_of(data):
    """[(label, block index, head dict)] for the blocks and heads drawn."""
    blocks = data["blocks"]
    out = []
    for b in shown(len(blocks), MAX_BLOCKS):
        heads = blocks[b]["heads"]
        for k in shown(len(heads), MAX_HEADS):
            # A hybrid model's heads name their mixer (docs/transformer.md §9).
            mixer = f" {heads[k]['mixer']}" if "mixer" in heads[k] else ""
            out.append((f"{b + 1}.{k + 1}{mixer}", b, heads[k]))
    return out


def draw_spectra(axis, data, heads):
    colours = plt.get_cmap("viridis")
    blocks = max(1, len(data["blocks"]))
    n = data["n"]
    ranks = np.arange(1, n + 1)
    for label, b, head in heads:
        for key, colour, width in (("spectrum_at_init", "0.75", 0.8),
                                   ("spectrum", colours(b / max(1, blocks - 1) * 0.85), 1.2)):
            sigma = np.asarray(head[key]["mean_singular_values"], dtype=float)
            if sigma.size == 0 or sigma[0] <= 0:
                continue
            curve = sigma / sigma[0]
            axis.semilogy(ranks[:sigma.size], curve, color=colour, lw=width)
            k99 = int(round(head[key]["k99"]["median"]))
            if 1 <= k99 <= sigma.size:
                axis.plot([k99], [curve[k99 - 1]], "o", color=colour, ms=3)
    uniform = data["uniform_causal_average"]
    axis.axvline(uniform["k99"], color="black", ls="--", lw=0.8,
                 label=f"uniform causal average: k99 = {uniform['k99']}")
    axis.plot([], [], color="0.75", label="at initialisation")
    axis.plot([], [], "o", color="k", ms=3, label="median k99 of a head")
    # The last few σ of a causal M fall towards rounding level; the decay that matters is above.
    axis.set_ylim(1e-4, 1.5)
    axis.set_xlabel("singular value index")
    axis.set_ylabel("σ_k / σ_1 (mean over windows)")
    axis.set_title("seed 001: spectra of M(X)")
    axis.legend(fontsize=7)


def draw_truncation(axis, data):
    ranks = [row["rank"] for row in data["truncation"]]
    losses = [row["loss"] for row in data["truncation"]]
    full = data["full_loss"]
    axis.plot(ranks + [data["n"]], losses + [full], "o-", color="tab:blue",
              label="every head truncated to rank k")
    axis.axhline(full, color="black", lw=0.8, label=f"full model: {full:.3f}")
    axis.axhspan(full, full + 0.01, color="tab:green", alpha=0.2, label="within 0.01 nats")
    if 16 in ranks:
        axis.axvline(16, color="0.6", ls=":", lw=0.8, label="k = 16 (seed 001's test at n = 64)")
    axis.set_xscale("log", base=2)
    axis.set_xlabel("rank k of every head's M")
    axis.set_ylabel("validation loss (nats)")
    axis.set_title("seed 001: loss against truncation rank")
    axis.legend(fontsize=7)


def draw_gaps(axis, heads):
    labels, medians, lows, highs = [], [], [], []
    exact = 0
    for label, _, head in heads:
        if "distance_form" not in head:
            continue
        if head["distance_form"].get("exact"):
            exact += 1
            continue
        gap = head["distance_form"]["gap"]
        labels.append(label)
        medians.append(gap["median"])
        lows.append(gap["median"] - gap["p10"])
        highs.append(gap["p90"] - gap["median"])
    if not labels:
        axis.text(0.5, 0.5, "distance heads: exactly the distance form (gap 0)" if exact else
                  "no scores (input-independent mixer)", ha="center", transform=axis.transAxes)
        axis.set_axis_off()
        return
    x = np.arange(len(labels))
    axis.bar(x, medians, color="tab:purple", yerr=[lows, highs], capsize=2)
    axis.set_xticks(x, labels, rotation=90, fontsize=7)
    axis.set_xlabel("block.head")
    axis.set_ylabel("gap (0 = distance form)")
    axis.set_title("seed 002: spread of ½‖k‖² / spread of scores")


def draw_omega(axis, heads):
    rows = [(label, head["omega"]["parts"][0]) for label, _, head in heads
            if head.get("omega", {}).get("parts")]
    if not rows:
        axis.text(0.5, 0.5, "no Ω (input-independent mixer)", ha="center",
                  transform=axis.transAxes)
        axis.set_axis_off()
        return
    width = 0.4
    x = np.arange(len(rows))
    for offset, side in ((-width / 2, "query"), (width / 2, "key")):
        bottom = np.zeros(len(rows))
        for read, colour in READS:
            values = np.array([part[side][read] for _, part in rows])
            axis.bar(x + offset, values, width * 0.95, bottom=bottom, color=colour,
                     label=read if side == "query" else None,
                     hatch="" if side == "query" else "//", edgecolor="white", lw=0)
            bottom += values
    axis.set_xticks(x, [label for label, _ in rows], rotation=90, fontsize=7)
    axis.set_xlabel("block.head (left bar: query vector u₁, right, hatched: key vector v₁)")
    axis.set_ylabel("share of ‖·‖² (spans may overlap)")
    axis.set_title("seed 003: what Ω's top part D₁ reads")
    axis.legend(fontsize=7)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run")
    parser.add_argument("--out", help="path without extension (default RUN/head_structure)")
    args = parser.parse_args()
    path = os.path.join(args.run, "heads.json")
    if not os.path.exists(path):
        raise SystemExit(f"{path} is missing: it is written by `ufl train` and `ufl analyze` for "
                         "next_token runs; run `ufl analyze {args.run}` to write it")
    with open(path) as handle:
        data = json.load(handle)
    heads = heads_of(data)
    figure, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    draw_spectra(axes[0, 0], data, heads)
    draw_truncation(axes[0, 1], data)
    draw_gaps(axes[1, 0], heads)
    draw_omega(axes[1, 1], heads)
    with open(os.path.join(args.run, "config.json")) as handle:
        config = json.load(handle)
    # The config's name and seed, not the folder's: `ufl train` draws this in its staging folder.
    mixer = config["layer"]["mixer"]
    if isinstance(mixer, list):  # a hybrid block, one mixer per head (docs/transformer.md §9)
        mixer = " + ".join(f"{mixer.count(name)} {name}" for name in dict.fromkeys(mixer))
    figure.suptitle(f"{config.get('name', '?')}, seed {config.get('seed', '?')}: "
                    f"{mixer} heads on {config['dataset']['kind']}, "
                    f"{data['windows']} validation windows")
    figure.tight_layout()
    out = args.out or os.path.join(args.run, "head_structure")
    for extension in ("png", "svg"):
        figure.savefig(f"{out}.{extension}", dpi=110)


if __name__ == "__main__":
    main()
