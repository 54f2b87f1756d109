#!/usr/bin/python3
"""The tables and figures of the transformer study (scripts/reproduce_transformer.sh,
docs/transformer.md §9).

    /usr/bin/python3 scripts/transformer_study_report.py RUNS_DIR OUT_DIR

RUNS_DIR holds the run folders (the complete ones listed in runs.csv beside it, `ufl collect`, and
the diverged ones: scripts/ufl_runs.py), named by part: depth-L<L>-s<seed>, mqar-<mixer>-D<width>-s<seed>,
text-<mixer>-s<seed> (text-attention48-…: attention with the universal mixer's parameter count).
Writes OUT_DIR/tables.md and the figures fig_text_loss, fig_mqar, fig_heads and fig_depth (.png
and .svg), each with a title, labelled axes and units.

Rules, fixed before the runs:
- induction: a run succeeds when η_fix ≥ 1.5 (docs/section7.md); a run that diverged (status
  "diverged" in manifest.json) is counted apart and as no success;
- mqar: a run solves the task when its query accuracy on the validation sequences is ≥ 0.99;
- rates carry 95 % Wilson intervals; means carry the sample standard deviation and the count.
"""
import csv
import json
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from head_map import draw_head  # noqa: E402
import ufl_runs  # noqa: E402
from ufl_runs import wilson  # noqa: E402

SUCCESS_ETA_FIX = 1.5
SOLVED_ACCURACY = 0.99
TEXT_MIXERS = ["universal", "attention", "attention48", "linear", "convolution", "lowrank"]
MQAR_MIXERS = ["universal", "attention", "linear", "convolution"]
MIXER_LABEL = {"attention48": "attention, rank 48 (universal's size)"}


def mean_sd(values, digits=3):
    """'0.512 ± 0.034 (n = 5)': mean ± sample standard deviation and the count."""
    return ufl_runs.mean_sd_text(values, digits, empty="—", count=True)


def load_runs(folder):
    """The complete and the diverged runs in folder (scripts/ufl_runs.py) whose names say their
    part, each with its loss curve."""
    runs = []
    for run in ufl_runs.load_runs(folder, diverged=True):
        match = re.match(r"(depth|mqar|text)-(.+)-s(\d+)$", run["name"])
        if not match:
            continue
        run["path"] = run["dir"]
        loss_path = os.path.join(run["path"], "loss.csv")
        run["curve"] = list(csv.DictReader(open(loss_path))) if os.path.isfile(loss_path) else []
        run["part"], run["key"], run["seed"] = match.group(1), match.group(2), int(match.group(3))
        runs.append(run)
    return runs


def training(runs):
    """'2000 steps, lr 1e-3' from the runs' saved config (the script's STEPS_* may change it)."""
    settings = set()
    for run in runs:
        path = os.path.join(run["path"], "config.json")
        if os.path.isfile(path):
            train = json.load(open(path)).get("train", {})
            settings.add(f"{train.get('steps', '?')} steps, lr {train.get('lr', '?'):g}")
    return "; ".join(sorted(settings)) or "?"


def status(run):
    return run["status"]


def ms_per_step(run):
    manifest = run["manifest"]
    steps = manifest.get("steps_done", 0)
    return 1e3 * manifest.get("train_seconds", 0) / steps if steps else float("nan")


# ---------------------------------------------------------------------------------- text

def text_table(runs, lines):
    lines += ["## Real text: the reference configuration (fortunes, n = 64, D = 128, 4 blocks of 4 "
              f"heads, {training(runs)})", "",
              "| mixer | parameters | validation loss (nats/char) | bits per character | "
              "difference to attention | ms per step (1 thread) |", "|---|---|---|---|---|---|"]
    attention = [r["metrics"]["validation_loss"] for r in runs
                 if r["key"] == "attention" and "validation_loss" in r["metrics"]]
    for mixer in TEXT_MIXERS:
        chosen = [r for r in runs if r["key"] == mixer and "validation_loss" in r["metrics"]]
        if not chosen:
            continue
        losses = [r["metrics"]["validation_loss"] for r in chosen]
        bits = [r["metrics"]["validation_bits"] for r in chosen]
        params = chosen[0]["metrics"].get("parameters", 0)
        difference = (f"{statistics.mean(losses) - statistics.mean(attention):+.3f}"
                      if attention and mixer != "attention" else "—")
        times = [ms_per_step(r) for r in chosen]
        lines.append(f"| {MIXER_LABEL.get(mixer, mixer)} | {params:,} | {mean_sd(losses)} | "
                     f"{mean_sd(bits)} | {difference} | {statistics.mean(times):.1f} |")
    lines.append("")


def text_curves(runs, out):
    figure, axis = plt.subplots(figsize=(8, 5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, mixer in enumerate(TEXT_MIXERS):
        curves = []
        for run in runs:
            if run["key"] != mixer:
                continue
            points = [(int(row["step"]), float(row["val_loss"])) for row in run["curve"]
                      if row.get("val_loss")]
            if points:
                curves.append(points)
        if not curves:
            continue
        steps = [s for s, _ in curves[0]]
        common = [s for s in steps if all(s in dict(c) for c in curves)]
        values = np.array([[dict(c)[s] for s in common] for c in curves])
        label = f"{MIXER_LABEL.get(mixer, mixer)} ({len(curves)} seeds)"
        axis.plot(common, values.mean(axis=0), color=colours[k], label=label)
        axis.fill_between(common, values.min(axis=0), values.max(axis=0), color=colours[k],
                          alpha=0.2, linewidth=0)
    axis.set_xlabel("training step")
    axis.set_ylabel("validation loss (nats per character)")
    axis.set_title("Real text (fortunes): validation loss per mixer\n"
                   "line: mean over seeds; band: lowest to highest seed")
    axis.set_ylim(top=min(axis.get_ylim()[1], 3.5))
    axis.grid(alpha=0.3)
    axis.legend(loc="upper right", fontsize=8)
    save(figure, out, "fig_text_loss")


def heads_table(runs, lines):
    """What each block's heads became on text, over seeds, for every mixer with heads analysed."""
    lines += ["## What each block's heads became on text (all seeds; kinds of docs/transformer.md "
              "§5)", "",
              "| mixer | block | kinds of its heads (count over seeds × heads) | mean distance d̄ "
              "(positions) | ι | γ |", "|---|---|---|---|---|---|"]
    for mixer in ["universal", "attention", "linear", "convolution", "lowrank"]:
        chosen = [r for r in runs if r["key"] == mixer and r["metrics"].get("layers")]
        if not chosen:
            continue
        for l in range(len(chosen[0]["metrics"]["layers"])):
            kinds, distances, iotas, gammas = {}, [], [], []
            for run in chosen:
                for head in run["metrics"]["layers"][l].get("heads", []):
                    kinds[head.get("kind", "?")] = kinds.get(head.get("kind", "?"), 0) + 1
                    distances.append(head.get("mean_distance", 0))
                    iotas.append(head.get("iota", 0))
                    if "gamma" in head and mixer == "universal":
                        gammas.append(head["gamma"])
            described = ", ".join(f"{kind} {count}" for kind, count in
                                  sorted(kinds.items(), key=lambda item: -item[1]))
            gamma = f"{statistics.mean(gammas):.2f}" if gammas else "—"
            lines.append(f"| {mixer} | {l + 1} | {described} | {statistics.mean(distances):.1f} | "
                         f"{statistics.mean(iotas):.2f} | {gamma} |")
    lines.append("")


def heads_figure(runs, out):
    chosen = {}
    for mixer in ("universal", "attention"):
        for run in sorted(runs, key=lambda r: r["seed"]):
            if run["key"] == mixer and run["metrics"].get("layers"):
                chosen[mixer] = run
                break
    if not chosen:
        return
    blocks = max(len(r["metrics"]["layers"]) for r in chosen.values())
    heads = max(len(layer["heads"]) for r in chosen.values() for layer in r["metrics"]["layers"])
    columns = heads * len(chosen)
    figure, axes = plt.subplots(blocks, columns, figsize=(2.5 * columns + 0.5, 2.7 * blocks + 1.2),
                                squeeze=False)
    for m, (mixer, run) in enumerate(chosen.items()):
        for l, layer in enumerate(run["metrics"]["layers"]):
            for k, head in enumerate(layer["heads"]):
                matrix = np.load(os.path.join(run["path"], head["mean_M"]))
                draw_head(figure, axes[l][m * heads + k], matrix, head, mixer,
                          f"{mixer}: block {l + 1}, head {k + 1}", ylabel=m == 0 and k == 0)
    figure.suptitle("What each head became on text, seed 1: mean mixing matrix M̄ over 64 "
                    "validation windows\n(left: universal, right: attention; colour scale "
                    "clipped at the 99th percentile below the diagonal)", fontsize=11)
    figure.tight_layout(rect=(0, 0, 1, 0.95))
    save(figure, out, "fig_heads")


# ---------------------------------------------------------------------------------- mqar

def mqar_table(runs, lines):
    widths = sorted({int(r["key"].rsplit("-D", 1)[1]) for r in runs})
    lines += ["## Multi-query associative recall (n = 64, 8 pairs, vocabulary 256, 2 blocks, "
              f"{training(runs)})", "",
              "| mixer | width D | parameters | query accuracy | solved (accuracy ≥ 0.99) | 95 % "
              "Wilson interval |", "|---|---|---|---|---|---|"]
    for mixer in MQAR_MIXERS:
        for width in widths:
            chosen = [r for r in runs if r["key"] == f"{mixer}-D{width}"]
            done = [r for r in chosen if "validation_accuracy" in r["metrics"]]
            if not chosen:
                continue
            accuracy = [r["metrics"]["validation_accuracy"] for r in done]
            solved = sum(a >= SOLVED_ACCURACY for a in accuracy)
            low, high = wilson(solved, len(chosen))
            params = done[0]["metrics"].get("parameters", 0) if done else 0
            lines.append(f"| {mixer} | {width} | {params:,} | {mean_sd(accuracy)} | "
                         f"{solved}/{len(chosen)} | [{low:.2f}, {high:.2f}] |")
    lines.append("")


def mqar_figure(runs, out):
    widths = sorted({int(r["key"].rsplit("-D", 1)[1]) for r in runs})
    figure, axis = plt.subplots(figsize=(8, 4.5))
    offsets = np.linspace(-0.15, 0.15, len(widths)) if len(widths) > 1 else [0.0]
    markers = ["o", "s", "^", "D"]
    for w, width in enumerate(widths):
        for m, mixer in enumerate(MQAR_MIXERS):
            accuracy = [r["metrics"]["validation_accuracy"] for r in runs
                        if r["key"] == f"{mixer}-D{width}" and "validation_accuracy" in r["metrics"]]
            if not accuracy:
                continue
            x = m + offsets[w]
            axis.scatter([x] * len(accuracy), accuracy, marker=markers[w % 4], color=f"C{w}",
                         alpha=0.6, label=f"D = {width}, one seed" if m == 0 else None)
            axis.hlines(statistics.mean(accuracy), x - 0.06, x + 0.06, color=f"C{w}", linewidth=2,
                        label=f"D = {width}, mean" if m == 0 else None)
    axis.axhline(SOLVED_ACCURACY, color="grey", linestyle=":", linewidth=1)
    axis.set_xticks(range(len(MQAR_MIXERS)), MQAR_MIXERS)
    axis.set_xlabel("mixer")
    axis.set_ylabel("query accuracy (fraction of recalled values)")
    axis.set_ylim(-0.02, 1.05)
    axis.set_title("Multi-query associative recall: accuracy per mixer and width\n"
                   "(dotted: the 0.99 'solved' line)")
    axis.grid(alpha=0.3, axis="y")
    axis.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    save(figure, out, "fig_mqar")


# --------------------------------------------------------------------------------- depth

def depth_table(runs, lines):
    depths = sorted({int(r["key"][1:]) for r in runs})
    lines += ["## Depth: Section 7's induction task in transformer blocks (2 universal heads, "
              f"D = 32, {training(runs)})", "",
              "| blocks L | runs | success (η_fix ≥ 1.5) | 95 % Wilson interval | diverged | η_fix "
              "| blank MSE | test MSE |", "|---|---|---|---|---|---|---|---|"]
    for depth in depths:
        chosen = [r for r in runs if r["key"] == f"L{depth}"]
        done = [r for r in chosen if "eta_fix" in r["metrics"]]
        diverged = sum(status(r) == ufl_runs.DIVERGED for r in chosen)
        successes = sum(r["metrics"]["eta_fix"] >= SUCCESS_ETA_FIX for r in done)
        low, high = wilson(successes, len(chosen))
        eta = [r["metrics"]["eta_fix"] for r in done]
        blank = [r["metrics"]["row_mse"]["blank"] for r in done
                 if "blank" in r["metrics"].get("row_mse", {})]
        test = [r["metrics"]["test_mse"] for r in done if "test_mse" in r["metrics"]]
        lines.append(f"| {depth} | {len(chosen)} | {successes}/{len(chosen)} | [{low:.2f}, "
                     f"{high:.2f}] | {diverged} | {mean_sd(eta)} | {mean_sd(blank)} | "
                     f"{mean_sd(test)} |")
    reference = next((r["metrics"] for r in runs if "optimal_mse" in r["metrics"]), None)
    if reference:
        lines += ["", f"Optimum: test MSE {reference['optimal_mse']:.3f} (blank rows "
                  f"{reference.get('optimal_row_mse', {}).get('blank', float('nan')):.3f}); best "
                  f"fixed linear operator {reference['fixed_mse']:.3f} (blank rows "
                  f"{reference.get('fixed_row_mse', {}).get('blank', float('nan')):.3f})."]
    lines.append("")


def depth_figure(runs, out):
    depths = sorted({int(r["key"][1:]) for r in runs})
    rates, lows, highs = [], [], []
    for depth in depths:
        chosen = [r for r in runs if r["key"] == f"L{depth}"]
        successes = sum(r["metrics"].get("eta_fix", 0) >= SUCCESS_ETA_FIX for r in chosen)
        low, high = wilson(successes, len(chosen))
        rates.append(successes / max(1, len(chosen)))
        lows.append(rates[-1] - low)
        highs.append(high - rates[-1])
    figure, axis = plt.subplots(figsize=(6.5, 4.5))
    axis.errorbar(depths, rates, yerr=[lows, highs], marker="o", capsize=5)
    axis.set_xticks(depths)
    axis.set_xlabel("transformer blocks L")
    axis.set_ylabel("runs that found the recall circuit (fraction)")
    axis.set_ylim(-0.05, 1.05)
    axis.set_title("Induction with transformer blocks: success (η_fix ≥ 1.5) against depth\n"
                   "with 95 % Wilson intervals, 10 seeds per depth")
    axis.grid(alpha=0.3)
    save(figure, out, "fig_depth")


def save(figure, out, name):
    for extension in ("png", "svg"):
        figure.savefig(os.path.join(out, f"{name}.{extension}"), dpi=110, bbox_inches="tight")
    plt.close(figure)


def main(runs_dir, out):
    runs = load_runs(runs_dir)
    os.makedirs(out, exist_ok=True)
    lines = ["# The transformer study (scripts/reproduce_transformer.sh)", ""]
    parts = {part: [r for r in runs if r["part"] == part] for part in ("text", "mqar", "depth")}
    if parts["text"]:
        text_table(parts["text"], lines)
        heads_table(parts["text"], lines)
        text_curves(parts["text"], out)
        heads_figure(parts["text"], out)
    if parts["mqar"]:
        mqar_table(parts["mqar"], lines)
        mqar_figure(parts["mqar"], out)
    if parts["depth"]:
        depth_table(parts["depth"], lines)
        depth_figure(parts["depth"], out)
    with open(os.path.join(out, "tables.md"), "w") as handle:
        handle.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
