#!/usr/bin/python3
"""Plot metrics of a sweep against one swept setting, one line per group, mean ± std over
the remaining runs (the seeds).

Usage:  /usr/bin/python3 scripts/sweeps/plot_sweep.py RUNS_CSV OUT_PREFIX
            [--x config.dataset.noise] [--y eta,eta_fix,claim_holds] [--group config.dataset.kind]

RUNS_CSV is what `ufl collect` (or scripts/sweep.sh) writes; any column works for --x,
--y and --group (metrics by name, settings as config.<path>; true/false count as 1/0, so
claim_holds plots the share of seeds where the claim held). Writes OUT_PREFIX.png and .svg.
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

try:
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:
    sys.exit(f"plot_sweep.py needs numpy and matplotlib ({e}); run it with /usr/bin/python3")

LABELS = {"eta": "η = mse(M*)/mse(layer)", "eta_fix": "η_fix = mse(M_fix)/mse(layer)",
          "claim_holds": "share of seeds where the claim holds", "emerged": "share emerged",
          "config.dataset.noise": "noise σ"}
REFERENCE = {"eta": 1.0, "eta_fix": 1.0}  # 1 = optimum reached / = best fixed operator


def number(v):
    if v in ("true", "false"):
        return float(v == "true")
    try:
        return float(v)
    except ValueError:
        return math.nan


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv")
    p.add_argument("out_prefix")
    p.add_argument("--x", default="config.dataset.noise")
    p.add_argument("--y", default="eta,eta_fix,claim_holds")
    p.add_argument("--group", default="config.dataset.kind")
    a = p.parse_args()
    with open(a.csv) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{a.csv} has no runs")
    for col in [a.x, a.group] + a.y.split(","):
        if col not in rows[0]:
            sys.exit(f"no column {col!r} in {a.csv}; columns: {', '.join(rows[0])}")

    # Runs that share group and x are averaged; that should differ only in the seed.
    cells = defaultdict(list)
    for r in rows:
        cells[(r[a.group], number(r[a.x]))].append(r)
    ignore = {"run", "config.seed", "config.name", a.x, a.group}
    for key, rs in cells.items():
        varying = [c for c in rs[0] if c.startswith("config.") and c not in ignore
                   and len({r[c] for r in rs}) > 1]
        if varying:
            print(f"warning: {key} averages runs that differ in {', '.join(varying)}",
                  file=sys.stderr)

    ys = a.y.split(",")
    groups = sorted({g for g, _ in cells}, key=lambda g: (["local", "global", "periodic",
                                                          "lowrank", g].index(g), g))
    fig, axes = plt.subplots(1, len(ys), figsize=(5.2 * len(ys), 4.2), squeeze=False)
    for ax, y in zip(axes[0], ys):
        for i, g in enumerate(groups):
            xs = sorted(x for gg, x in cells if gg == g)
            stats = [[number(r[y]) for r in cells[(g, x)]] for x in xs]
            mean = [np.nanmean(s) for s in stats]
            std = [np.nanstd(s, ddof=1) if len(s) > 1 else 0.0 for s in stats]
            ns = sorted({len(s) for s in stats})  # runs per point, normally the seeds
            n = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
            ax.errorbar(xs, mean, yerr=std, marker="o", capsize=3, color=f"C{i}",
                        label=f"{g} (n = {n})")
        if y in REFERENCE:
            ax.axhline(REFERENCE[y], color="k", ls="--", lw=1)
        ax.set_xlabel(LABELS.get(a.x, a.x))
        ax.set_ylabel(LABELS.get(y, y))
        ax.set_title(f"{y} vs {a.x.removeprefix('config.')}")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8.5, title=a.group.removeprefix("config."))
    fig.suptitle(f"{a.csv}: mean ± std over seeds", fontsize=11)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{a.out_prefix}.{ext}", dpi=150)
    print(f"wrote {a.out_prefix}.png and .svg")


if __name__ == "__main__":
    main()
