#!/usr/bin/python3
"""Section 7 report: the table and one figure per depth from finished ufl runs (docs/section7.md).

Usage:  /usr/bin/python3 scripts/section7_report.py RUNS_DIR OUT_DIR

The runs are the complete ones under RUNS_DIR that runs.csv beside it lists (`ufl collect`) and
the diverged ones (scripts/ufl_runs.py). Runs are grouped by dataset kind and depth L. OUT_DIR receives table.md (also printed) and fig_depth<L>.{png,svg}.

Success on induction: η_fix ≥ 1.5 (the stack's MSE at most 2/3 of the best fixed operator's,
which one layer provably cannot beat). The figure of depth L shows the induction seed with the
lowest test MSE: one row per layer (M̄_l, M_l(X) of the first test sample, the share of ‖M̄_l‖²
on each diagonal offset) and, in the last row, the training curves of every seed.
"""
import collections
import os
import sys

import ufl_runs
from script_arguments import arguments
from ufl_runs import rate

try:
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch
    from matplotlib.ticker import FormatStrFormatter, NullFormatter
    from mpl_toolkits.axes_grid1 import make_axes_locatable
except ImportError as e:
    sys.exit(f"section7_report.py needs numpy and matplotlib ({e}); run it with /usr/bin/python3 "
             f"(bash scripts/install_deps.sh installs them).")

SUCCESS_ETA_FIX = 1.5
# A run whose test MSE ends above 10× the best fixed operator's has blown up (the loss stays
# finite, so the trainer does not stop it): counted apart, and left out of the means.
DIVERGED_FACTOR = 10.0


def diverged(metrics):
    # A run the trainer stopped as diverged (its loss grew past 10⁶ × its first, or became NaN:
    # docs/running.md) has no metrics.json; find_runs marks it.
    if metrics.get("diverged"):
        return True
    return not metrics["test_mse"] <= DIVERGED_FACTOR * metrics["fixed_mse"]
KINDS = ["induction", "local", "global", "periodic", "lowrank"]


def find_runs(root):
    """The complete and the diverged runs under root (scripts/ufl_runs.py; an interrupted run is
    not a result yet), each with its dataset kind, depth and seed."""
    runs = ufl_runs.load_runs(root, diverged=True)
    for r in runs:
        r["kind"] = r["config"]["dataset"]["kind"]
        r["depth"] = r["config"].get("model", {}).get("depth", 1)
        r["seed"] = r["config"].get("seed", 0)
    return runs


# Mean ± sample standard deviation (ddof 1), the value alone for a single run, "–" for none.
mean_std = ufl_runs.mean_sd_text


def layers_of(run):
    return run["metrics"].get("layers") or []


def best_blank_routing(metrics):
    """The recall may happen in any layer of a deep stack, not only the last (whose value the
    top-level blank_routing reports): the largest share over the layers."""
    values = [l.get("blank_routing") for l in metrics.get("layers") or []]
    values = [v for v in values if v is not None]
    return max(values) if values else metrics.get("blank_routing")


def blank_eta(metrics):
    """η on the blank rows (optimum's blank MSE / the stack's) beside the recall step's in-class
    ceiling (eta_ceiling: the best single dot-product softmax head on the previous rows)."""
    etas = [m["optimal_row_mse"]["blank"] / m["row_mse"]["blank"] for m in metrics
            if m.get("row_mse", {}).get("blank")]
    ceilings = [m["eta_ceiling"] for m in metrics if "eta_ceiling" in m]
    text = mean_std(etas)
    return text + (f" ({mean_std(ceilings)})" if ceilings else "")


def verdict_counts(group, layer):
    counts = collections.Counter()
    for run in group:
        layers = layers_of(run)
        if layer < len(layers):
            counts[layers[layer]["verdict"]] += 1
    return ", ".join(f"{v} {c}" for v, c in counts.most_common())


def offset_counts(group, layer):
    counts = collections.Counter()
    for run in group:
        layers = layers_of(run)
        if layer < len(layers):
            counts[layers[layer]["dominant_offset"]] += 1
    return ", ".join(f"{o:+d}×{c}" if o else f"0×{c}" for o, c in counts.most_common())


def table(runs):
    lines = []
    groups = collections.defaultdict(list)
    for run in runs:
        groups[(run["kind"], run["depth"])].append(run)
    order = sorted(groups, key=lambda k: (KINDS.index(k[0]) if k[0] in KINDS else 99, k[1]))
    induction = [k for k in order if k[0] == "induction"]
    if induction:
        lines += ["### induction (recall after a key; mean ± sample std over seeds)", "",
                  "| L | seeds | success (η_fix ≥ 1.5; 95% Wilson interval) | diverged | test MSE | η | η_fix | blank MSE | "
                  "blank η (ceiling) | blank routing (best layer) | per-layer verdict | "
                  "dominant offset | branch gain |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for key in induction:
            everything = sorted(groups[key], key=lambda r: r["seed"])
            blown = sum(diverged(r["metrics"]) for r in everything)
            wins = sum(r["metrics"].get("eta_fix", 0) >= SUCCESS_ETA_FIX for r in everything)
            group = [r for r in everything if not diverged(r["metrics"])] or everything
            m = [r["metrics"] for r in group]
            depth = key[1]
            verdicts = "<br>".join(f"{l + 1}: {verdict_counts(group, l)}" for l in range(depth))
            offsets = "<br>".join(f"{l + 1}: {offset_counts(group, l)}" for l in range(depth))
            gains = "<br>".join(
                f"{l + 1}: " + mean_std([layers_of(r)[l]["branch_gain"] for r in group])
                for l in range(depth))
            lines.append(
                f"| {depth} | {len(everything)} | {rate(wins, len(everything))} | {blown} | "
                f"{mean_std([x['test_mse'] for x in m])} | {mean_std([x['eta'] for x in m])} | "
                f"{mean_std([x['eta_fix'] for x in m])} | "
                f"{mean_std([x.get('row_mse', {}).get('blank') for x in m])} | "
                f"{blank_eta(m)} | "
                f"{mean_std([best_blank_routing(x) for x in m])} | {verdicts} | {offsets} | "
                f"{gains} |")
        lines += ["", "Means ± sample standard deviation (ddof 1) over the seeds that did not diverge (test MSE ≤ 10× the best "
                  "fixed operator's); the verdicts, offsets and gains are those seeds' too. Blank "
                  "η: the optimum's blank-row MSE over the stack's; in brackets the in-class "
                  "ceiling, the best single dot-product softmax head on each row's previous row "
                  "(eta_ceiling, docs/experiment.md §3)."]
        ref = next((r["metrics"] for r in groups[induction[0]] if not diverged(r["metrics"])),
                   groups[induction[0]][0]["metrics"])
        lines += ["", f"References on the same test sets: per-sample optimum MSE "
                  f"{ref['optimal_mse']:.3f} (blank rows "
                  f"{ref.get('optimal_row_mse', {}).get('blank', float('nan')):.3f}); best fixed "
                  f"linear operator (Wiener) {ref['fixed_mse']:.3f} (blank rows "
                  f"{ref.get('fixed_row_mse', {}).get('blank', float('nan')):.3f}).", "",
                  "Per seed (L: seed → η_fix, blank routing):", ""]
        for key in induction:
            group = sorted(groups[key], key=lambda r: r["seed"])
            lines.append(f"- L = {key[1]}: " + ", ".join(
                f"s{r['seed']} " + ("diverged" if diverged(r["metrics"]) else
                                    f"{r['metrics']['eta_fix']:.2f}/"
                                    f"{best_blank_routing(r['metrics']):.2f}") for r in group))
        lines.append("")
    others = [k for k in order if k[0] != "induction"]
    if others:
        lines += ["### Section 8 datasets in a stack (mean ± sample std over seeds)", "",
                  "| dataset | L | seeds | diverged | η | η_fix | per-layer verdict | "
                  "dominant offset | branch gain |", "|---|---|---|---|---|---|---|---|---|"]
        for key in others:
            everything = sorted(groups[key], key=lambda r: r["seed"])
            blown = sum(diverged(r["metrics"]) for r in everything)
            group = [r for r in everything if not diverged(r["metrics"])]
            if not group:
                lines.append(f"| {key[0]} | {key[1]} | {len(everything)} | {blown} | – | – | – | "
                             f"– | – |")
                continue
            m = [r["metrics"] for r in group]
            depth = key[1]
            verdicts = "<br>".join(f"{l + 1}: {verdict_counts(group, l)}" for l in range(depth))
            offsets = "<br>".join(f"{l + 1}: {offset_counts(group, l)}" for l in range(depth))
            gains = "<br>".join(
                f"{l + 1}: " + mean_std([layers_of(r)[l]["branch_gain"] for r in group])
                for l in range(depth) if layers_of(group[0]))
            lines.append(f"| {key[0]} | {depth} | {len(everything)} | {blown} | "
                         f"{mean_std([x['eta'] for x in m])} "
                         f"| {mean_std([x['eta_fix'] for x in m])} | {verdicts} | {offsets} | "
                         f"{gains} |")
        lines += ["", "Means ± sample standard deviation (ddof 1) and counts over the seeds that did "
                  "not diverge."]
    return "\n".join(lines)


def read_curve(run):
    steps, losses = [], []
    with open(os.path.join(run["dir"], "loss.csv")) as f:
        next(f)
        for line in f:
            fields = line.strip().split(",")
            steps.append(int(fields[0]))
            losses.append(float(fields[3]))  # the minibatch MSE
    return np.array(steps), np.array(losses)


def smooth(values, window=100):
    if len(values) < window:
        return values
    kernel = np.ones(window) / window
    return np.convolve(values, kernel, mode="valid")


ROLE_COLOURS = {"k": "tab:green", "v": "tab:purple", "b": "tab:red"}
ROLE_NAMES = {"k": "key", "v": "value", "b": "blank"}


def row_roles(n):
    """Each position's role in an induction sample (docs/section7.md §2): (key, value) pairs in
    the first half, (key, blank) pairs in the second."""
    return ["k" if i % 2 == 0 else ("v" if i < n // 2 else "b") for i in range(n)]


def matrix_panel(fig, ax, matrix, roles, title, colour_label):
    """A heat map of an n×n mixing matrix with each position's role as a coloured strip on both
    axes (left: the output row i, below: the input row j) and the two halves of the sample
    divided by dashed lines."""
    n = len(roles)
    divider = make_axes_locatable(ax)
    left = divider.append_axes("left", size="4%", pad=0.03)
    below = divider.append_axes("bottom", size="4%", pad=0.03)
    cax = divider.append_axes("right", size="5%", pad=0.1)
    limit = np.abs(matrix).max() or 1.0
    im = ax.imshow(matrix, cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.axvline(n / 2 - 0.5, color="0.35", lw=0.7, ls="--")
    ax.axhline(n / 2 - 0.5, color="0.35", lw=0.7, ls="--")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=9)
    codes = np.array(["kvb".index(r) for r in roles])
    roles_map = ListedColormap([ROLE_COLOURS[r] for r in "kvb"])
    ticks = list(range(0, n, 8)) + [n - 1]
    left.imshow(codes[:, None], cmap=roles_map, vmin=0, vmax=2, aspect="auto")
    left.set_xticks([])
    left.set_yticks(ticks)
    left.set_ylabel("output position i", fontsize=8)
    below.imshow(codes[None, :], cmap=roles_map, vmin=0, vmax=2, aspect="auto")
    below.set_yticks([])
    below.set_xticks(ticks)
    below.set_xlabel("input position j", fontsize=8)
    fig.colorbar(im, cax=cax).set_label(colour_label, fontsize=8)


def figure(runs, depth, out_dir):
    """Figure of depth L: one row per layer of the induction seed with the lowest test MSE
    (M̄_l, M_l of test sample 1, the diagonal-energy profile), then the training curves of every
    seed that did not diverge."""
    group = sorted((r for r in runs if r["kind"] == "induction" and r["depth"] == depth),
                   key=lambda r: r["seed"])
    if not group:
        return None
    best = min(group, key=lambda r: r["metrics"].get("test_mse", float("inf")))
    blown = [r["seed"] for r in group if diverged(r["metrics"])]
    fig = plt.figure(figsize=(15, 3.4 * depth + 3.7))
    grid = fig.add_gridspec(depth + 1, 3, height_ratios=[1.0] * depth + [0.9],
                            width_ratios=[1.0, 1.0, 1.1])
    config = best["config"]
    n = config["dataset"]["n"]
    roles = row_roles(n)
    for l in range(depth):
        # A run of depth 1 keeps the single layer's file names (no layer1/ folder).
        folder = os.path.join(best["dir"], f"layer{l + 1}") if depth > 1 else best["dir"]
        layer = layers_of(best)[l]
        mean = np.load(os.path.join(folder, "M_mean.npy"))
        sample = np.load(os.path.join(folder, "M.npy"))[0]
        energy = np.array(layer["diagonal_energy"])
        about = (f"layer {l + 1}: {layer['verdict']}, dominant offset "
                 f"{layer['dominant_offset']:+d}, branch gain {layer['branch_gain']:.2f}\n"
                 f"ι = {layer['iota']:.2f}, blanks routed {layer.get('blank_routing', 0):.2f}")
        applied_to = "X" if l == 0 else f"H_{l}"
        matrix_panel(fig, fig.add_subplot(grid[l, 0]), mean, roles,
                     r"$\bar{M}_%d$ (mean over the test set)" % (l + 1) + "\n" + about,
                     "mean weight (dimensionless)")
        matrix_panel(fig, fig.add_subplot(grid[l, 1]), sample, roles,
                     r"$M_%d(%s)$ of test sample 1" % (l + 1, applied_to) + "\n" + about,
                     "weight (dimensionless)")
        ax = fig.add_subplot(grid[l, 2])
        offsets = np.arange(-(n - 1), n)
        colours = ["tab:orange" if o == -1 else "tab:blue" for o in offsets]
        ax.bar(offsets, energy, width=1.0, color=colours)
        ax.set_xlabel("diagonal offset j − i (positions)", fontsize=8)
        ax.set_ylabel(r"share of $\|\bar{M}_%d\|_F^2$ (fraction)" % (l + 1), fontsize=8)
        ax.set_title(f"layer {l + 1}: energy on each diagonal\n(orange: offset −1, the previous "
                     f"position, {energy[n - 2]:.2f})", fontsize=9)
    ax = fig.add_subplot(grid[depth, :])
    for run in group:
        if diverged(run["metrics"]):
            continue  # listed in the table; its curve would hide the others
        steps, losses = read_curve(run)
        s = smooth(losses)
        eta_fix = run["metrics"]["eta_fix"]
        # One colour per seed, the same in every figure (a diverged seed leaves its colour out).
        ax.plot(steps[len(steps) - len(s):], s, color=plt.get_cmap("tab10")((run["seed"] - 1) % 10),
                lw=1.6 if eta_fix >= SUCCESS_ETA_FIX else 0.9,
                label=f"seed {run['seed']}: η_fix {eta_fix:.2f}" +
                      (" (layers above)" if run is best else ""))
    m = best["metrics"]
    ax.axhline(m["fixed_mse"], color="k", ls="--", lw=1,
               label=f"best fixed operator (test {m['fixed_mse']:.3f})")
    ax.axhline(m["optimal_mse"], color="k", ls=":", lw=1,
               label=f"optimum (test {m['optimal_mse']:.3f})")
    ax.set_xlabel("training step")
    ax.set_yscale("log")
    low, high = ax.get_ylim()
    ax.set_yticks([t for t in (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.8, 1.0)
                   if low <= t <= high])
    ax.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel("training MSE (minibatch,\nrunning mean of 100 steps)")
    ax.set_title(f"induction, L = {depth}: training curves of every seed (thick: success, "
                 f"η_fix ≥ {SUCCESS_ETA_FIX})" +
                 (f"; not shown: diverged seed{'s' if len(blown) > 1 else ''} "
                  f"{', '.join(map(str, blown))}" if blown else ""), fontsize=10)
    ax.legend(fontsize=8, labelspacing=0.3, loc="upper left", bbox_to_anchor=(1.01, 1),
              borderaxespad=0)
    chosen = (f", the lowest test MSE of {len(group)} seeds" if len(group) > 1 else "")
    fig.suptitle(
        f"Section 7, induction (n = {n}, d = {config['dataset']['d']}, σ = "
        f"{config['dataset']['noise']}; L = {depth}"
        f"{' residual' if config['model'].get('residual') else ''} "
        f"layer{'s' if depth > 1 else ''}, D = "
        f"{config['model'].get('width', config['dataset']['d'])}, "
        f"{config['train']['steps']} steps): the layers of seed {best['seed']}{chosen}\n"
        f"η = {m['eta']:.3f}, η_fix = {m['eta_fix']:.2f}, blank MSE "
        f"{m.get('row_mse', {}).get('blank', float('nan')):.3f} (optimum "
        f"{m.get('optimal_row_mse', {}).get('blank', float('nan')):.3f}, best fixed operator "
        f"{m.get('fixed_row_mse', {}).get('blank', float('nan')):.3f})", fontsize=11,
        y=1 - 0.1 / fig.get_figheight(), va="top")
    fig.legend(handles=[Patch(color=ROLE_COLOURS[r], label=f"{r}: {ROLE_NAMES[r]}")
                        for r in "kvb"],
               title="row roles (strips beside each matrix; dashed: the two halves)",
               loc="upper center", bbox_to_anchor=(0.5, 1 - 0.55 / fig.get_figheight()),
               ncol=3, fontsize=8, title_fontsize=8, frameon=False)
    # Margins in inches (tight_layout misplaces the role strips' and colour bars' axes).
    height = fig.get_figheight()
    fig.subplots_adjust(left=0.07, right=0.83, bottom=0.6 / height, top=1 - 1.6 / height,
                        hspace=0.6, wspace=0.3)
    paths = []
    for extension in ("png", "svg"):
        path = os.path.join(out_dir, f"fig_depth{depth}.{extension}")
        fig.savefig(path, dpi=110)
        paths.append(path)
    plt.close(fig)
    return paths[0]


def best_test_mse_before(run):
    """A run the trainer stopped as diverged has no metrics; its loss.csv holds the test MSE
    of every evaluation before the blow-up. The lowest of them is what the run reached at its
    best (what early stopping would keep)."""
    best = None
    with open(os.path.join(run["dir"], "loss.csv")) as f:
        next(f)
        for line in f:
            fields = line.strip().split(",")
            if len(fields) > 5 and fields[5]:
                value = float(fields[5])
                if np.isfinite(value) and (best is None or value < best):
                    best = value
    return best


# The thresholds each headline count rests on, and the values tried (docs/section7.md §6).
SUCCESS_BARS = [1.4, 1.5, 1.6]
ATTENTION_MARGINS = [0.0, 0.1, 0.25, 0.5]  # the stack's η_fix ≥ 1 + margin
IOTA_MINS = [0.1, 0.2, 0.3]


def layer_attention(layer, eta_fix, iota_min, margin):
    """The per-layer attention test (docs/section7.md §4) with a margin: ι ≥ iota_min and the
    stack beats the best fixed operator by the factor 1 + margin (margin 0: the verdict's test).
    A silent layer is never attention."""
    return (layer.get("verdict") != "silent" and layer.get("iota", 0) >= iota_min
            and eta_fix >= 1 + margin)


def robustness(runs):
    """Markdown: how each headline count of the induction experiment moves with its thresholds,
    with 95% Wilson intervals; and the L = 3 means with and without the diverged seeds."""
    groups = collections.defaultdict(list)
    for run in runs:
        if run["kind"] == "induction":
            groups[run["depth"]].append(run)
    if not groups:
        return ""
    lines = ["### Robustness of the induction counts", "",
             "Success (η_fix ≥ bar), counted over all seeds (a diverged seed is a failure) and "
             "over the seeds that did not diverge; 95% Wilson intervals in brackets.", "",
             "| L | " + " | ".join(f"η_fix ≥ {b} (all seeds)" for b in SUCCESS_BARS) +
             " | η_fix ≥ 1.5 (not diverged) |", "|---|" + "---|" * (len(SUCCESS_BARS) + 1)]
    for depth in sorted(groups):
        group = groups[depth]
        ok = [r for r in group if not diverged(r["metrics"])]
        cells = [rate(sum(r["metrics"].get("eta_fix", 0) >= b for r in ok), len(group))
                 for b in SUCCESS_BARS]
        cells.append(rate(sum(r["metrics"].get("eta_fix", 0) >= 1.5 for r in ok), len(ok)))
        lines.append(f"| {depth} | " + " | ".join(cells) + " |")
    lines += ["", "Layers called attention (per layer, seeds that did not diverge), by ι_min and "
              "by the margin the stack must beat the best fixed operator by (η_fix ≥ 1 + margin; "
              "margin 0 is the verdict of docs/section7.md §4), beside the successes "
              "(η_fix ≥ 1.5):", "",
              "| L | layer | successes | " + " | ".join(
                  f"ι ≥ {i}, margin {m}" for i in IOTA_MINS for m in ATTENTION_MARGINS
                  if i == 0.2 or m == 0.0) + " |"]
    columns = [(i, m) for i in IOTA_MINS for m in ATTENTION_MARGINS if i == 0.2 or m == 0.0]
    lines.append("|---|---|---|" + "---|" * len(columns))
    for depth in sorted(groups):
        ok = [r for r in groups[depth] if not diverged(r["metrics"])]
        wins = sum(r["metrics"]["eta_fix"] >= 1.5 for r in ok)
        for l in range(depth):
            cells = []
            for iota_min, margin in columns:
                cells.append(str(sum(
                    l < len(layers_of(r)) and layer_attention(layers_of(r)[l],
                                                              r["metrics"]["eta_fix"],
                                                              iota_min, margin)
                    for r in ok)))
            lines.append(f"| {depth} | {l + 1} | {wins}/{len(ok)} | " + " | ".join(cells) + " |")
    # L = 3 (any depth with diverged seeds): the means with and without them.
    for depth in sorted(groups):
        group = groups[depth]
        blown = [r for r in group if diverged(r["metrics"])]
        if not blown:
            continue
        ok = [r for r in group if not diverged(r["metrics"])]
        fixed = ok[0]["metrics"]["fixed_mse"] if ok else float("nan")
        optimal = ok[0]["metrics"]["optimal_mse"] if ok else float("nan")
        best = {r["seed"]: best_test_mse_before(r) for r in blown}
        with_blown = [r["metrics"]["test_mse"] for r in ok] + [
            v for v in best.values() if v is not None]
        lines += ["", f"L = {depth}: {len(blown)} of {len(group)} seeds diverged (seeds "
                  f"{', '.join(str(r['seed']) for r in blown)}; the lowest test MSE each reached "
                  f"before: " + ", ".join(f"s{k} {v:.3f}" if v is not None else f"s{k} none"
                                          for k, v in best.items()) + ").", "",
                  "| L = " + str(depth) + " (mean ± sample std over seeds) | seeds | test MSE | "
                  "η | η_fix |",
                  "|---|---|---|---|---|"]
        def row(name, mses):
            mses = [m for m in mses if m is not None]
            return (f"| {name} | {len(mses)} | {mean_std(mses)} | "
                    f"{mean_std([optimal / m for m in mses])} | "
                    f"{mean_std([fixed / m for m in mses])} |")
        lines.append(row("without the diverged seeds", [r["metrics"]["test_mse"] for r in ok]))
        lines.append(row("with them, at their best test MSE before diverging", with_blown))
    return "\n".join(lines)


family_name = ufl_runs.case_name


def unclassified_layers(runs):
    """Every layer the per-layer verdict leaves unclassified, with the "none of the families"
    test (metrics layers[l].family_fit, docs/planted.md §2): the fewest-parameter family whose
    Frobenius fit keeps 0.95 of ‖M̄_l‖², or none, with the best family and the share it keeps."""
    rows = []
    for run in sorted(runs, key=lambda r: (KINDS.index(r["kind"]) if r["kind"] in KINDS else 99,
                                           r["depth"], r["seed"])):
        if diverged(run["metrics"]):
            continue
        for layer in layers_of(run):
            if layer.get("verdict") != "unclassified":
                continue
            fit = layer.get("family_fit")
            if fit is None:
                continue
            best = fit.get("best_family", {})
            fams = fit.get("families", {})
            top = sorted(fams.values(), key=lambda f: -f.get("kept", 0))[:3]
            rows.append(
                f"| {run['kind']} | {run['depth']} | {run['seed']} | {layer['layer']} | "
                f"{layer.get('branch_gain', float('nan')):.2f} | {layer.get('iota', float('nan')):.3f} | "
                f"{'**none of the families**' if fit.get('none_of_the_families') else family_name(fit)} | "
                f"{family_name(best)} {best.get('kept', float('nan')):.3f} | "
                + ", ".join(f"{family_name(f)} {f.get('kept', float('nan')):.3f}" for f in top)
                + " |")
    if not rows:
        return ""
    return "\n".join([
        "### The unclassified layers: none of the families?", "",
        "Each layer whose per-layer verdict is unclassified (seeds that did not diverge), with "
        "the family whose Frobenius fit of M̄_l keeps 0.95 of its energy with the fewest "
        "parameters (lowrank counted up to k = n/2), else **none of the families**; the best "
        "structured family with the share it keeps, and the three families that keep most "
        "(each at its best size).", "",
        "| dataset | L | seed | layer | branch gain | ι | family (0.95 of ‖M̄_l‖²) | best family, kept | "
        "the three closest |",
        "|---|---|---|---|---|---|---|---|---|", *rows])


def main():
    root, out_dir = arguments(__doc__, 2)
    runs = find_runs(root)
    if not runs:
        sys.exit(f"no finished runs under {root}")
    os.makedirs(out_dir, exist_ok=True)
    text = table(runs)
    for extra in (robustness(runs), unclassified_layers(runs)):
        if extra:
            text += "\n\n" + extra
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    for depth in sorted({r["depth"] for r in runs if r["kind"] == "induction"}):
        path = figure(runs, depth, out_dir)
        if path:
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
