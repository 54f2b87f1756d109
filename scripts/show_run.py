#!/usr/bin/python3
"""What one run learned, as one figure: RUN/summary.png (`ufl show RUN` draws it).

    /usr/bin/python3 scripts/show_run.py RUN_DIR [--out PATH.png]

One layer (Section 8): M̄ beside the optimum M*, their singular values, the loss with the test MSE,
and the scores of M̄ along training (trajectory.csv). A stack (model.depth > 1): M̄ of every layer
with what it became, M*, the spectra and the loss. A token run (next_token): the training and
validation loss curves and the per-head map of M̄. A run that did not finish: its loss curve.
The file is written under a temporary name and renamed, so it is whole or absent.
"""
import argparse
import csv
import json
import math
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors as colors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from panel_cap import MAX_BLOCKS, MAX_HEADS, note, shown  # noqa: E402
from ufl_runs import COMPLETE, DIVERGED, parse_status  # noqa: E402


def read_json(path):
    try:
        with open(path) as file:
            value = json.load(file)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def read_csv(path):
    """Columns of a CSV as float arrays (empty cells are NaN); {} when there is no file."""
    if not os.path.isfile(path):
        return {}, []
    with open(path) as file:
        rows = list(csv.reader(file))
    if not rows:
        return {}, []
    header = rows[0]
    columns = {name: [] for name in header}
    for row in rows[1:]:
        for name, cell in zip(header, row):
            try:
                columns[name].append(float(cell) if cell != "" else math.nan)
            except ValueError:
                columns[name].append(math.nan)
    return {name: np.array(values) for name, values in columns.items()}, header


def load(run, name):
    path = os.path.join(run, name)
    return np.load(path) if os.path.isfile(path) else None


def bound_of(*matrices):
    """The largest |entry| of the matrices: one symmetric colour scale for all of them."""
    values = [float(np.abs(m).max()) for m in matrices if m is not None and m.size]
    return max(values + [1e-12])


def show_matrix(figure, axis, matrix, title, bound=None, colorbar=True):
    """M (n×n) in one diverging map centred on 0, so that a colour means the same value and sign
    in every panel that shares `bound`."""
    bound = bound or bound_of(matrix)
    image = axis.imshow(matrix, cmap="RdBu_r", vmin=-bound, vmax=bound)
    if colorbar:
        bar = figure.colorbar(image, ax=axis, fraction=0.046, pad=0.03)
        bar.set_label("entry $M_{ij}$", fontsize=7)
        bar.ax.tick_params(labelsize=7)
    axis.set_title(title, fontsize=9)
    axis.set_xlabel("position j (input)", fontsize=8)
    axis.set_ylabel("position i (output)", fontsize=8)
    axis.tick_params(labelsize=7)
    return image


def legend_below(axis, columns=2, gap=0.2):
    """The legend under the axes (`gap` of their height below), off the data."""
    axis.legend(fontsize=7, ncol=columns, loc="upper center", bbox_to_anchor=(0.5, -gap),
                frameon=False)


# loss.csv's held-out column (its sixth) as a legend says it.
HELD_OUT = {"test_mse": "test MSE", "val_loss": "validation loss"}


def plot_loss(axis, loss, header, bits, gap=0.2):
    """The training loss per step and the held-out metric at its evaluations, log scale."""
    if not loss:
        axis.text(0.5, 0.5, "no loss.csv", ha="center", va="center")
        axis.axis("off")
        return
    steps = loss["step"]
    axis.plot(steps, loss["loss"], lw=0.8, label="training loss (minibatch, with the penalty)")
    metric = header[5] if len(header) > 5 else None
    if metric and metric in loss and not np.isnan(loss[metric]).all():
        held_out = ~np.isnan(loss[metric])
        axis.plot(steps[held_out], loss[metric][held_out], "o-", ms=2.5, lw=1,
                  label=HELD_OUT.get(metric, metric.replace("_", " ")))
    # Data whose positions carry labels (copy_text: copied, fresh): each label's validation loss.
    for column in header[6:]:
        if column.startswith("val_loss_") and not np.isnan(loss[column]).all():
            held_out = ~np.isnan(loss[column])
            axis.plot(steps[held_out], loss[column][held_out], ".--", ms=2.5, lw=0.8,
                      label=f"validation loss, {column[len('val_loss_'):]} positions")
    finite = loss["loss"][np.isfinite(loss["loss"])]
    # A log scale where the loss spans more than a decade or so (denoising from ~3 to ~0.1).
    if finite.size and finite.min() > 0 and finite.max() > 20 * finite.min():
        axis.set_yscale("log")
    axis.set_xlabel("step", fontsize=8)
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_ylabel("loss (nats per token)" if bits else "loss (mean squared error)", fontsize=8)
    axis.set_title("loss during training", fontsize=9)
    legend_below(axis, 1, gap)
    axis.tick_params(labelsize=7)


def plot_spectra(axis, spectra):
    """Singular values, largest first, log scale; those below 10⁻⁶ of the largest (zero up to
    rounding) at the axis' floor, so that they do not stretch it over twenty decades."""
    present = [(label, values) for label, values in spectra if values is not None and values.size]
    top = max([float(values.max()) for _, values in present] + [1e-300])
    floor = 1e-6 * top
    for label, values in present:
        axis.semilogy(np.arange(1, len(values) + 1), np.maximum(values, floor), ".-", ms=3,
                      lw=0.8, label=label)
    lowest = min([float(np.maximum(values, floor).min()) for _, values in present] + [top])
    axis.set_ylim(lowest / 2, top * 2)
    axis.set_title("singular values (below $10^{-6}\\sigma_1$: at the floor)", fontsize=9)
    axis.set_xlabel("index k (largest first)", fontsize=8)
    axis.set_ylabel("singular value $\\sigma_k$", fontsize=8)
    legend_below(axis, 3)
    axis.tick_params(labelsize=7)


def plot_trajectory(axis, trajectory):
    if not trajectory:
        axis.axis("off")
        return
    for name, symbol in [("gamma", "γ"), ("iota", "ι"), ("tau", "τ"), ("ell", "ℓ"), ("phi", "φ"),
                         ("alpha", "α")]:
        if name in trajectory:
            axis.plot(trajectory["step"], trajectory[name], lw=1, label=symbol)
    axis.set_ylim(-0.05, 1.05)
    axis.set_title(r"scores of $\bar{M}$ during training", fontsize=9)
    axis.set_xlabel("step", fontsize=8)
    axis.set_ylabel("score, and the gate γ (0 to 1)", fontsize=8)
    legend_below(axis, 6)
    axis.tick_params(labelsize=7)


def title_of(run, config, manifest, metrics):
    dataset, layer = config.get("dataset", {}), config.get("layer", {})
    model = config.get("model", {})
    depth = model.get("depth", 1)
    mixer = layer.get("mixer", "?")
    if isinstance(mixer, list):  # a hybrid block, one mixer per head (docs/transformer.md §9)
        mixer = " + ".join(f"{mixer.count(name)} {name}" for name in dict.fromkeys(mixer)) + " heads"
    else:
        mixer += " mixer"
    what = f"{dataset.get('kind', '?')} data, {mixer}"
    if depth > 1 or "heads" in layer:
        what += f", {depth} {model.get('block', 'mixer')} block{'s' if depth > 1 else ''}"
    status = parse_status(manifest)
    line = f"run {os.path.basename(os.path.normpath(run))}: {what} — {status or '?'}"
    if "verdict" in metrics:
        line += f"; verdict {metrics['verdict']}" + (" (emerged)" if metrics.get("emerged") else
                                                     " (not emerged)")
        if "eta" in metrics:
            line += f", η {metrics['eta']:.3f}"
    elif "layer_verdicts" in metrics:
        line += "; layers became " + " → ".join(map(str, metrics["layer_verdicts"]))
    elif "validation_loss" in metrics:
        line += (f"; validation loss {metrics['validation_loss']:.3f} nats per token "
                 f"({metrics.get('validation_bits', math.nan):.3f} bits)")
    elif status == DIVERGED:
        line += "\n" + textwrap.fill(manifest.get("error", ""), 72)
    return line


def single_layer(figure, run, loss, header, trajectory):
    axes = figure.subplots(2, 3)
    mean, optimum = load(run, "M_mean.npy"), load(run, "M_optimal.npy")
    bound = bound_of(mean, optimum)  # one scale: the two are compared side by side
    show_matrix(figure, axes[0][0], mean, r"$\bar{M}$ (learned, mean over the test set)", bound)
    if optimum is not None:
        show_matrix(figure, axes[0][1], optimum, r"$M^*$ (the optimum)", bound)
    else:
        axes[0][1].axis("off")
    plot_spectra(axes[0][2], [(r"$\bar{M}$", load(run, "M_mean_singular_values.npy")),
                              (r"$M^*$", load(run, "M_optimal_singular_values.npy"))])
    plot_loss(axes[1][0], loss, header, False)
    plot_trajectory(axes[1][1], trajectory)
    axes[1][2].axis("off")
    return axes[1][2]


def stack(figure, run, metrics, loss, header, depth):
    columns = max(depth + 1, 3)
    axes = figure.subplots(2, columns, squeeze=False)
    verdicts = metrics.get("layer_verdicts", [])
    spectra = []
    for layer in range(depth):
        mean = load(run, f"layer{layer + 1}/M_mean.npy")
        became = verdicts[layer] if layer < len(verdicts) else "?"
        if mean is not None:
            show_matrix(figure, axes[0][layer], mean, rf"layer {layer + 1}: $\bar{{M}}$ ({became})")
        else:
            axes[0][layer].axis("off")
        spectra.append((rf"$\bar{{M}}$ layer {layer + 1}",
                        load(run, f"layer{layer + 1}/M_mean_singular_values.npy")))
    optimum = load(run, "M_optimal.npy")
    if optimum is not None:
        show_matrix(figure, axes[0][depth], optimum, r"$M^*$ (the optimum of the whole map)")
    else:
        axes[0][depth].axis("off")
    for column in range(depth + 1, columns):
        axes[0][column].axis("off")
    spectra.append((r"$M^*$", load(run, "M_optimal_singular_values.npy")))
    plot_spectra(axes[1][0], spectra)
    plot_loss(axes[1][1], loss, header, False)
    for column in range(2, columns):
        axes[1][column].axis("off")
    return axes[1][2] if columns > 2 else None


def plot_gates(axis, trajectory, start=None):
    """Each head's gate γ against the step (trajectory.csv's block<l>/head<k> columns) as 1 − γ
    on a log scale, since the heads start near softmax (γ = layer.gate_init, dashed) and may move
    by thousandths (the copying check) or by a tenth and more (the study's text runs); 1 − γ = 1
    is the linear S alone (docs/universal_head.md §1)."""
    names = [name for name in trajectory if name.startswith("block")]
    floor = 1e-6  # below it a float γ is 1 to the precision stored: drawn at the floor
    for name in names:
        axis.semilogy(trajectory["step"], np.maximum(1 - trajectory[name], floor), lw=1,
                      label=name.replace("/", " "))
    if start is not None:
        # The same floor for the start: a layer.gate_init of 1 − 1e-16 would otherwise stretch the
        # axis ten decades below every curve.
        shown = "" if 1 - start >= floor else f"; 1 − γ < {floor:g}, drawn at {floor:g}"
        axis.axhline(max(1 - start, floor), color="0.4", lw=0.8, ls="--",
                     label=f"start (γ = {start:g}{shown})")
    axis.set_title("gate of each head: 1 − γ (smaller: closer to softmax alone)", fontsize=9)
    axis.set_xlabel("step", fontsize=8)
    axis.set_ylabel("1 − γ", fontsize=8)
    legend_below(axis, min(len(names) + 1, 3))
    axis.tick_params(labelsize=7)


def token_run(figure, run, metrics, loss, header, trajectory, gate_start=None):
    layers = [layer for layer in metrics.get("layers", []) if "heads" in layer]
    heads = max((len(layer["heads"]) for layer in layers), default=0)
    block_rows, head_columns = shown(len(layers), MAX_BLOCKS), shown(heads, MAX_HEADS)
    grid = figure.add_gridspec(max(len(block_rows), 1), 2 + max(len(head_columns), 1),
                               width_ratios=[2.2] + [1] * max(len(head_columns), 1) + [0.08])
    gated = any(name.startswith("block") for name in (trajectory or {}))
    if gated:  # the loss above, the gates below, in the first column
        left = grid[:, 0].subgridspec(2, 1, hspace=0.1)
        plot_loss(figure.add_subplot(left[0]), loss, header, True, 0.4)
        plot_gates(figure.add_subplot(left[1]), trajectory, gate_start)
    else:
        plot_loss(figure.add_subplot(grid[:, 0]), loss, header, True,
                  0.2 / max(len(block_rows), 1))
    matrices = {(l, k): load(run, layers[l]["heads"][k].get("mean_M", ""))
                for l in block_rows for k in head_columns if k < len(layers[l]["heads"])}
    # One colour scale for every head, so that heads compare; symmetric-log, since a causal
    # head's weights run from ~1 on the first rows to ~1/n on the last.
    bound = bound_of(*matrices.values())
    norm = colors.SymLogNorm(linthresh=1e-2 * bound, vmin=-bound, vmax=bound, base=10)
    image = None
    for row, l in enumerate(block_rows):
        for column, k in enumerate(head_columns):
            axis = figure.add_subplot(grid[row, 1 + column])
            matrix = matrices.get((l, k))
            if matrix is None:
                axis.axis("off")
                continue
            head = layers[l]["heads"][k]
            image = axis.imshow(matrix, cmap="RdBu_r", norm=norm)
            axis.set_title(f"block {l + 1}, head {k + 1}: {head.get('kind', '?')}", fontsize=8)
            axis.set_xlabel(f"key position j\nd̄ {head.get('mean_distance', 0):.1f} · "
                            f"ι {head.get('iota', 0):.2f}", fontsize=7)
            axis.set_ylabel("query position i", fontsize=7)
            axis.tick_params(labelsize=6)
    left_out = note(block_rows, len(layers), head_columns, heads)
    if left_out:
        figure.text(0.5, 0.0, left_out, ha="center", va="bottom", fontsize=8)
    if image is not None:
        bar = figure.colorbar(image, cax=figure.add_subplot(grid[:, -1]))
        bar.set_label(r"entry of the head's $\bar{M}$ (symmetric log scale)", fontsize=8)
        bar.ax.tick_params(labelsize=7)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run")
    parser.add_argument("--out", help="the PNG to write (default RUN/summary.png)")
    args = parser.parse_args()
    run = args.run
    config = read_json(os.path.join(run, "config.json"))
    manifest = read_json(os.path.join(run, "manifest.json"))
    metrics = read_json(os.path.join(run, "metrics.json"))
    loss, header = read_csv(os.path.join(run, "loss.csv"))
    trajectory, _ = read_csv(os.path.join(run, "trajectory.csv"))
    depth = config.get("model", {}).get("depth", 1)
    tokens = config.get("task", {}).get("kind") == "next_token"
    complete = parse_status(manifest) == COMPLETE

    if tokens and complete:
        heads = max((len(layer.get("heads", [])) for layer in metrics.get("layers", [])), default=1)
        heads = min(max(heads, 1), MAX_HEADS)
        blocks = min(max(len(metrics.get("layers", [])), 1), MAX_BLOCKS)
        # Constrained layout: a grid of heads with one colour bar and the loss beside it, which
        # tight_layout packs onto each other.
        figure = plt.figure(figsize=(5.0 + 2.6 * heads, max(3.6, 2.8 * blocks) + 1.0),
                            layout="constrained")
        token_run(figure, run, metrics, loss, header, trajectory,
                  config.get("layer", {}).get("gate_init"))
        text_axis = None
    elif complete and depth > 1:
        figure = plt.figure(figsize=(3.6 * max(depth + 1, 3), 7.4))
        text_axis = stack(figure, run, metrics, loss, header, depth)
    elif complete and os.path.isfile(os.path.join(run, "M_mean.npy")):
        figure = plt.figure(figsize=(12.5, 7.4))
        text_axis = single_layer(figure, run, loss, header, trajectory)
    else:  # interrupted or diverged: how far the loss got
        figure = plt.figure(figsize=(7, 4.2))
        plot_loss(figure.add_subplot(1, 1, 1), loss, header, tokens)
        text_axis = None
    if text_axis is not None:
        lines = []
        for key, label in [("test_mse", "test MSE"), ("optimal_mse", "optimum MSE"),
                           ("fixed_mse", "best fixed MSE"), ("eta", "η"), ("eta_fix", "η_fix")]:
            if isinstance(metrics.get(key), (int, float)):
                lines.append(f"{label}: {metrics[key]:.4g}")
        for key, symbol in [("iota", "ι"), ("tau", "τ"), ("ell", "ℓ"), ("phi", "φ"),
                            ("alpha", "α"), ("gamma", "γ")]:
            if isinstance(metrics.get(key), (int, float)):
                lines.append(f"{symbol} = {metrics[key]:.3f}")
        if metrics.get("claimed"):
            lines.append(f"claimed: {metrics['claimed']} "
                         f"({'holds' if metrics.get('claim_holds') else 'does not hold'})")
        text_axis.text(0.02, 0.98, "\n".join(lines), va="top", ha="left", fontsize=10,
                       linespacing=1.5, transform=text_axis.transAxes)
    figure.suptitle(title_of(run, config, manifest, metrics), fontsize=11)
    if figure.get_layout_engine() is None:
        figure.tight_layout(rect=(0, 0, 1, 0.95))
    out = args.out or os.path.join(run, "summary.png")
    temporary = os.path.join(os.path.dirname(out) or ".", f".{os.path.basename(out)}.{os.getpid()}.png")
    try:
        figure.savefig(temporary, dpi=100)
        os.replace(temporary, out)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
