#!/usr/bin/python3
"""Section 8 report: the table and the three figures of spec §5 from finished ufl runs.

Usage:  /usr/bin/python3 scripts/section8_report.py RUNS_DIR OUT_DIR

The runs are the complete ones under RUNS_DIR that runs.csv beside it lists (`ufl collect`;
scripts/ufl_runs.py); runs are grouped by dataset kind, seeds are averaged. OUT_DIR receives table.md, table.csv and
fig{1,2,3}_*.{png,svg}; the markdown table is also printed.

Scaling: the layer outputs Y = M(X) X W_v, so it may trade scale between M and W_v.
Figure 1 therefore draws w·M with w = trace(W_v)/d (metrics "value_scale"), the same
scaling ufl uses for singular_value_errors, so M and M* are comparable on one colour scale.
"""
import csv
import json
import math
import os
import sys

import ufl_runs
from script_arguments import arguments
from ufl_runs import rate

try:
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")  # no display needed; we only write files
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
except ImportError as e:  # the first python3 on PATH (pyenv, venv) often lacks them
    sys.exit(f"section8_report.py needs numpy and matplotlib ({e}).\n"
             f"Run it with /usr/bin/python3 (Debian's python3-numpy and python3-matplotlib; "
             f"install them with: bash scripts/install_deps.sh).")

KINDS = ["local", "global", "periodic", "lowrank"]  # the spec's order; others go last
# The four operators of the emergence matrix: (column title, verdict name, score function).
OPERATORS = [
    ("convolution\nτ·ℓ", "convolution", lambda m: m["tau"] * m["ell"]),
    ("attention\nι", "attention", lambda m: m["iota"]),
    ("Fourier\nφ", "fourier", lambda m: m["phi"]),
    ("SVD\nα", "svd", lambda m: m["alpha"]),
]
# Scores reported per dataset (layer), and which of them M* also has under metrics["optimal"].
SCORES = ["eta", "eta_fix", "iota", "tau", "ell", "phi", "alpha", "effective_rank", "k99",
          "orth_rel", "gamma", "routing_accuracy", "test_mse", "optimal_mse", "fixed_mse"]
OPTIMAL_SCORES = ["iota", "tau", "ell", "phi", "alpha", "effective_rank", "k99",
                  "routing_accuracy", "mse"]

MBAR = r"$\bar{M}$"  # mathtext: the combining macron of "M̄" does not render in the fonts
plt.rcParams.update({"font.size": 10, "axes.titlesize": 10.5})


# ---------------------------------------------------------------- loading

def find_runs(root):
    """The complete runs under root (scripts/ufl_runs.py), each with its dataset kind and seed."""
    runs = ufl_runs.load_runs(root)
    for r in runs:
        r["kind"] = r["metrics"].get("dataset", r["config"]["dataset"]["kind"])
        r["seed"] = r["config"].get("seed", r["metrics"].get("seed"))
    return runs


def load_loss(d):
    """loss.csv as float arrays; test_mse is NaN where it was not evaluated."""
    cols = {}
    with open(os.path.join(d, "loss.csv")) as f:
        for row in csv.DictReader(f):
            for k, v in row.items():
                cols.setdefault(k, []).append(float(v) if v != "" else math.nan)
    return {k: np.array(v) for k, v in cols.items()}


def npy(run, name):
    return np.load(os.path.join(run["dir"], name + ".npy"))


def group_by_kind(runs):
    groups = {}
    for r in sorted(runs, key=lambda r: (r["seed"], r["dir"])):
        groups.setdefault(r["kind"], []).append(r)
    order = [k for k in KINDS if k in groups] + sorted(k for k in groups if k not in KINDS)
    for k in order:  # averaging runs of different settings would be silently wrong
        # the seed, the run's name and the data's seed (which follows the seed) may differ
        settings = {json.dumps({**r["config"], "seed": None, "name": None,
                                "dataset": {**r["config"].get("dataset", {}), "seed": None}},
                               sort_keys=True)
                    for r in groups[k]}
        if len(settings) > 1:
            print(f"warning: the {k} runs differ in more than the seed; they are averaged "
                  f"anyway (use scripts/sweeps/plot_sweep.py for sweeps)", file=sys.stderr)
    return [(k, groups[k]) for k in order]


# ---------------------------------------------------------------- numbers

def values(runs, key, optimal=False):
    out = []
    for r in runs:
        m = r["metrics"]["optimal"] if optimal else r["metrics"]
        v = m.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out.append(float(v))
    return np.array(out)


mean_std = ufl_runs.mean_sd  # mean and sample standard deviation (ddof 1; 0 for a single run)


def decimals(x):
    """Decimals for mean ± std: 3 significant digits of the mean (2 below 0.01), one more
    if that is what it takes to show the first digit of the spread."""
    m, s = mean_std(x)
    if not math.isfinite(m) or m == 0:
        return 3
    r = float(f"{m:.3g}")  # magnitude after rounding: 0.99999 counts as 1.00
    mag = math.floor(math.log10(abs(r)))
    dec = (2 if abs(r) >= 0.01 else 1) - mag
    if s > 0:
        dec = max(dec, min(-math.floor(math.log10(s)), dec + 1))
    return min(max(dec, 0), 6)


def fmt(x, dec=None):
    """'0.9982 ± 0.0002'; dec forces the decimals (to line the optimum up with the layer)."""
    if len(x) == 0:
        return "—"
    m, s = mean_std(x)
    if dec is None:
        if np.all(x == np.round(x)) and s == 0:
            return f"{m:.0f}"  # integer scores such as k99 that agree over seeds
        dec = decimals(x)
    return f"{m:.{dec}f}" if len(x) == 1 else f"{m:.{dec}f} ± {s:.{dec}f}"


def fmt_pair(layer, best):
    """The layer's and the optimum's value of one score, with the same decimals."""
    dec = None if len(layer) == 0 or (np.all(layer == np.round(layer)) and
                                      np.all(best == np.round(best))) else decimals(layer)
    return fmt(layer, dec), fmt(best, dec)


def counts(strings):
    """'convolution 5/5' (or 'attention 4/5, unclassified 1/5')."""
    n = len(strings)
    return ", ".join(f"{v} {strings.count(v)}/{n}"
                     for v in sorted(set(strings), key=lambda v: -strings.count(v)))


# ---------------------------------------------------------------- table

def write_tables(groups, out, linear=None):
    linear = linear or {}
    csv_rows, md_verdict, md_scores = [], [], []
    for kind, runs in groups:
        ms = [r["metrics"] for r in runs]
        seeds = ",".join(str(r["seed"]) for r in runs)
        verdicts = counts([m["verdict"] for m in ms])
        emerged = sum(bool(m["emerged"]) for m in ms)
        claimed = "/".join(sorted({m.get("claimed", "?") for m in ms}))
        holds = sum(bool(m.get("claim_holds")) for m in ms)
        row = {"dataset": kind, "seeds": seeds, "n_runs": len(runs), "verdict": verdicts,
               "emerged": emerged, "claimed": claimed, "claim_holds": holds,
               "claim_holds_all": holds == len(runs),
               "optimal.verdict": counts([m["optimal"]["verdict"] for m in ms])}
        plain = linear.get(kind, [])
        plain_holds = sum(bool(r["metrics"].get("claim_holds")) for r in plain)
        row.update({"linear.verdict": counts([r["metrics"]["verdict"] for r in plain]),
                    "linear.claim_holds": plain_holds, "linear.n_runs": len(plain)})
        for key in SCORES + ["eta_ceiling"]:
            row[key + "_mean"], row[key + "_std"] = mean_std(values(runs, key))
        for key in OPTIMAL_SCORES:
            row[f"optimal.{key}_mean"], row[f"optimal.{key}_std"] = \
                mean_std(values(runs, key, optimal=True))
        csv_rows.append(row)

        n = len(runs)
        ceiling = values(runs, "eta_ceiling")
        eta_text = fmt(values(runs, "eta"))
        if len(ceiling):
            eta_text += (f" (ceiling {fmt(ceiling)}: "
                         f"{fmt(values(runs, 'eta') / ceiling)} of it)")
        plain_text = (f"{row['linear.verdict']}; claim holds {rate(plain_holds, len(plain))}"
                      if plain else "—")
        md_verdict.append([kind, claimed, verdicts, rate(emerged, n), rate(holds, n),
                           plain_text, eta_text,
                           *(fmt(values(runs, k)) for k in
                             ["eta_fix", "test_mse", "optimal_mse", "fixed_mse"])])
        pairs = [fmt_pair(values(runs, k), values(runs, k, optimal=True)) for k in
                 ["iota", "tau", "ell", "phi", "alpha", "effective_rank", "k99"]]
        route = fmt_pair(values(runs, "routing_accuracy"),
                         values(runs, "routing_accuracy", optimal=True))
        md_scores.append([kind, "layer", *(p[0] for p in pairs), fmt(values(runs, "orth_rel")),
                          fmt(values(runs, "gamma")), route[0]])
        md_scores.append(["", "M* (reference)", *(p[1] for p in pairs), "—", "—", route[1]])

    with open(os.path.join(out, "table.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(csv_rows[0]))
        w.writeheader()
        w.writerows(csv_rows)

    def md(header, rows):
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])

    n_seeds = sorted({len(r) for _, r in groups})
    text = "\n\n".join([
        "### Section 8: which operator emerged",
        f"Mean ± sample standard deviation over seeds ({'/'.join(map(str, n_seeds))} "
        "runs per dataset). η = mse(M*)/mse(layer), η_fix = mse(M_fix)/mse(layer); "
        "MSEs on the held-out test set. Counts carry their 95% Wilson interval. *linear "
        "mixer*: the same data and training with `layer.mixer=linear`, a free n×n matrix with "
        "no structure of its own; where it gets the same verdict, the verdict is the data's "
        "optimum, not something only the universal layer finds. *ceiling* (global): the best "
        "η of any single-head dot-product softmax operator softmax(β·x_iᵀx_j + δ·[i = j]), "
        "value gain c, fitted directly on the training set (`eta_ceiling`, "
        "docs/experiment.md §3).",
        md(["dataset", "claimed", "verdict", "emerged", "claim holds", "linear mixer",
            "η", "η_fix", "test MSE", "optimal MSE", "fixed MSE"], md_verdict),
        "Operator scores of M̄ (layer) and of the optimum M* (reference, from "
        "`metrics.optimal`). For `global`, M* is the per-sample pairing operator: ι and "
        "routing use it per sample, the other scores its mean over the test set, as for M̄. "
        "α compares top-k subspaces, k = the targets' k99; when k = n it is 1 for any operator.",
        md(["dataset", "", "ι", "τ", "ℓ", "φ", "α", "eff. rank", "k99", "orth_rel", "γ",
            "routing acc."], md_scores),
        "Robustness of the headline counts: the claim recomputed from each run's saved scores "
        "with another ι_min (the other thresholds as run; the recomputation reproduces every "
        "saved verdict at ι_min = 0.2), and the closest special case of the universal layer "
        "at parsimony shares 0.90, 0.95 (the default) and 0.98; 95% Wilson intervals.",
        robustness_table(groups),
    ]) + "\n"
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(text)
    return text


# ---------------------------------------------------------------- robustness

IOTA_MINS = [0.1, 0.2, 0.3, 0.4]


def verdict_at(m, n, iota_min):
    """The verdict of docs/experiment.md §3 from a run's saved scores, with ι_min replaced; the
    other thresholds are the run's. Returns (verdict, emerged)."""
    th = m.get("thresholds", {})
    if m["iota"] >= iota_min and m["test_mse"] < m["fixed_mse"]:
        return "attention", True
    if m["tau"] >= th.get("tau_min", 0.9) and m["ell"] >= th.get("ell_min", 0.9):
        name = "convolution"
    elif m["phi"] >= th.get("phi_min", 0.9):
        name = "fourier"
    elif m["alpha"] >= th.get("alpha_min", 0.9) and m.get("targets_k99", n) < n:
        name = "svd"
    else:
        return "unclassified", False
    return name, m["eta"] >= th.get("eta_min", 0.9)


def robustness_table(groups):
    """How the headline counts move with ι_min (verdicts recomputed from the saved scores, and
    checked to reproduce the saved verdict at the run's own ι_min) and with the parsimony share
    (closest_special_case.by_share)."""
    rows = []
    for kind, runs in groups:
        n = runs[0]["config"]["dataset"]["n"]
        cells = []
        for iota_min in IOTA_MINS:
            holds = 0
            for r in runs:
                m = r["metrics"]
                if iota_min == m.get("thresholds", {}).get("iota_min"):
                    assert verdict_at(m, n, iota_min)[0] == m["verdict"], r["dir"]
                name, emerged = verdict_at(m, n, iota_min)
                holds += emerged and name == m.get("claimed")
            cells.append(rate(holds, len(runs)))
        shares = []
        for index in range(3):
            picks = []
            for r in runs:
                by = r["metrics"].get("closest_special_case", {}).get("by_share", [])
                if len(by) > index:
                    c = by[index]
                    picks.append(c["mixer"] + (f" w={c['kernel_width']}" if "kernel_width" in c
                                               else f" k={c['rank']}" if "rank" in c else ""))
            shares.append(counts(picks) if picks else "—")
        rows.append([kind, *cells, *shares])
    header = (["dataset"] + [f"claim holds, ι_min = {i}" for i in IOTA_MINS] +
              [f"closest special case, share {s}" for s in ("0.90", "0.95", "0.98")])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


# ---------------------------------------------------------------- figure 1

def heat(ax, a, vmax, title):
    im = ax.imshow(a, cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest")
    ax.set_title(title)
    ax.set_xlabel("position j")
    ax.set_ylabel("position i")
    return im


def aligned(u, ref):
    """Flip singular vectors (columns) to point like the reference: signs are arbitrary."""
    return u * np.where(np.sum(u * ref, axis=0) < 0, -1.0, 1.0)


def singular_groups(values, limit, tolerance=0.02):
    """Index ranges (first, last) of consecutive singular values within `tolerance` (relative
    to the largest of the pair) of their neighbour, the first `limit` groups of non-zero ones."""
    groups, first = [], 0
    floor = 1e-9 * values[0]
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i - 1] - values[i] > tolerance * values[i - 1]:
            if values[first] > floor:
                groups.append((first, i - 1))
            first = i
    return groups[:limit]


def principal_cosines(a, b):
    """Cosines of the principal angles between the column spaces of a and b (orthonormal)."""
    return np.clip(np.linalg.svd(a.T @ b, compute_uv=False), 0.0, 1.0)


def fig_operators(groups, out):
    fig, axes = plt.subplots(len(groups), 4, figsize=(18, 4.3 * len(groups)),
                             gridspec_kw={"width_ratios": [1, 1.23, 1.15, 1.15]},
                             squeeze=False)
    for row, (kind, runs) in zip(axes, groups):
        run = runs[0]  # lowest seed
        m = run["metrics"]
        w = m.get("value_scale", 1.0)
        if kind == "global":  # no fixed M* exists: compare one sample with its true pairing
            mine, best = w * npy(run, "M")[0], npy(run, "M_optimal_samples")[0]
            names = ("w·M(X₀), one test sample", "M*(X₀): its true pairing")
        else:
            mine, best = w * npy(run, "M_mean"), npy(run, "M_optimal")
            names = (f"w·{MBAR} (mean over test set)", "M* (optimal estimator)")
        vmax = max(np.abs(mine).max(), np.abs(best).max())
        heat(row[0], mine, vmax, f"{kind}, seed {run['seed']}: {names[0]}\n"
             f"verdict {m['verdict']}, η = {m['eta']:.3f}, w = {w:.2f}")
        im = heat(row[1], best, vmax, f"{kind}: {names[1]}\n"
                  f"verdict {m['optimal']['verdict']} (reference)")
        fig.colorbar(im, ax=row[1], fraction=0.046, pad=0.04, label="entry value")

        # Spectrum: log scale, zero singular values (rank-deficient M*) drawn at the floor.
        ax = row[2]
        sv = w * npy(run, "M_mean_singular_values")
        sv_opt = npy(run, "M_optimal_singular_values")
        curves = [(sv, f"w·{MBAR}", "C0", "-"), (sv_opt, "M*" + (" (mean)" if kind == "global" else ""),
                                             "k", "--")]
        if kind == "global":  # the per-sample operators are what attention should match
            curves += [(w * np.linalg.svd(npy(run, "M")[0], compute_uv=False), "w·M(X₀)", "C1", "-"),
                       (np.linalg.svd(best, compute_uv=False), "M*(X₀)", "C3", "--")]
        floor = 1e-3 * max(c[0].max() for c in curves)
        for s, label, color, ls in curves:
            ax.semilogy(np.arange(1, len(s) + 1), np.maximum(s, floor), ls, color=color,
                        marker="o", ms=3, label=label)
        ax.set_ylim(floor * 0.8, None)
        ax.set_title(f"{kind}: singular values (k99: {MBAR} {m['k99']}, M* {m['optimal']['k99']})")
        ax.set_xlabel("index (values below 10⁻³·max\ndrawn at the bottom)")
        ax.set_ylabel("singular value")
        ax.legend(fontsize=8.5, loc="center left")
        ax.grid(alpha=0.3, which="both")

        # Singular subspaces: the singular vectors of a group of (nearly) equal singular values
        # are any basis of the group's subspace (periodic's cos/sin pairs; global's mean operator,
        # a scaled identity plus a constant), so single vectors cannot be compared. Compare each
        # group's subspace of M* with the same-sized subspace of M̄ by principal angles.
        ax = row[3]
        u = npy(run, "M_mean_U")
        u_opt, sv_opt_all, _ = np.linalg.svd(npy(run, "M_optimal"))
        groups_ = singular_groups(sv_opt_all, limit=6)
        labels, cos_min, cos_mean = [], [], []
        for first, last in groups_:
            # M̄'s subspace spanned by the same ranks (first..last) as the group of M*
            c = principal_cosines(u[:, first:last + 1], u_opt[:, first:last + 1])
            labels.append(f"{first + 1}" if first == last else f"{first + 1}–{last + 1}")
            cos_min.append(c.min())
            cos_mean.append(np.mean(c ** 2))
        x = np.arange(len(labels))
        ax.bar(x - 0.2, cos_mean, 0.4, color="C0", label="mean cos² of the principal angles")
        ax.bar(x + 0.2, cos_min, 0.4, color="C1", label="smallest cosine (largest angle)")
        ax.set_xticks(x, labels)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("ranks of M*'s singular values\n(grouped where within 2% of each other)")
        ax.set_ylabel("cosine (1: the same subspace)")
        ax.set_title(f"{kind}: each singular subspace of M*" + (" (mean)" if kind == "global"
                                                                 else "") +
                     f"\nagainst {MBAR}'s subspace of the same ranks")
        ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
        ax.grid(alpha=0.3, axis="y")
    fig.suptitle("Figure 1: the learned operator beside the optimum, per dataset", fontsize=14)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    save(fig, out, "fig1_operators")


# ---------------------------------------------------------------- figure 2

# The parsimony version's columns (universality spec §3): the special cases in the order of the
# score version's columns, then the rest; and the family each claimed operator names.
PARSIMONY = ["convolution", "attention", "fourier", "lowrank", "walsh", "haar", "dct",
             "butterfly", "linear", "universal", "none"]
# Always shown: the four families the paper names, and "none"; the others only when chosen.
PARSIMONY_SHOWN = {"convolution", "attention", "fourier", "lowrank", "none"}
CLAIMED_FAMILY = {"convolution": "convolution", "attention": "attention", "fourier": "fourier",
                  "svd": "lowrank"}


def fig_emergence(groups, out):
    nk = len(groups)
    parsimony = any("closest_special_case" in r["metrics"] for _, runs in groups for r in runs)
    if parsimony:
        fig, (ax, right) = plt.subplots(1, 2, figsize=(23, 2.1 * nk + 2.8),
                                        gridspec_kw={"width_ratios": [1.45, 1.0]})
        fig_parsimony(groups, right)
    else:
        fig, ax = plt.subplots(figsize=(11, 1.7 * nk + 2.2))
    score_version(groups, fig, ax)
    fig.tight_layout()
    save(fig, out, "fig2_emergence")


def fig_parsimony(groups, ax):
    """Datasets × closest special case of the trained layer: how many seeds chose each."""
    nk = len(groups)
    picked = {r["metrics"].get("closest_special_case", {}).get("mixer") for _, runs in groups
              for r in runs}
    columns = [f for f in PARSIMONY if f in PARSIMONY_SHOWN or f in picked]
    share = np.zeros((nk, len(columns)))
    for i, (kind, runs) in enumerate(groups):
        chosen = [r["metrics"].get("closest_special_case", {}) for r in runs]
        claimed = CLAIMED_FAMILY.get(runs[0]["metrics"].get("claimed"))
        for j, family in enumerate(columns):
            picks = [c for c in chosen if c.get("mixer") == family]
            share[i, j] = len(picks) / len(runs)
            if picks:
                sizes = sorted({c.get("kernel_width", c.get("rank")) for c in picks} - {None})
                detail = ""
                if sizes:
                    detail = ("\nw = " if family == "convolution" else "\nk = ") + \
                             ", ".join(map(str, sizes))
                fits = np.array([c.get("eta", math.nan) for c in picks])
                # η(fit) on a line of its own, so that "0.9679 ± 0.0006" fits the cell
                ax.text(j, i, f"{len(picks)}/{len(runs)}{detail}\nη(fit)\n{fmt(fits)}",
                        ha="center", va="center", fontsize=7.5, fontweight="bold",
                        color="black" if share[i, j] > 0.55 else "white")
            if family == claimed:
                ax.add_patch(Rectangle((j - 0.47, i - 0.47), 0.94, 0.94, fill=False,
                                       ec="red", lw=3))
    im = ax.imshow(share, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    plt.colorbar(im, ax=ax, label="share of seeds")
    ax.set_xticks(range(len(columns)), [c if c != "none" else "none of\nthem" for c in columns])
    ax.set_yticks(range(nk), [f"{k}\n({len(r)} seeds)" for k, r in groups])
    ax.xaxis.tick_top()
    ax.set_xlabel("closest special case: the mixer with the fewest parameters whose fit to "
                  f"{MBAR} keeps\nη(fit) ≥ 0.95·η (attention and universal only when ι ≥ iota_min "
                  "and the layer beats M_fix);\nred box: the seed paper's claim")
    ax.set_title("Parsimony version: which special case describes the layer (no order of tests)",
                 pad=12)


# The verdict test each column stands for, as a function of a metrics dict and the thresholds:
# whether an operator with these scores would pass it (the attention test also needs the MSEs).
def passes_test(op, m, th, n):
    if op == "convolution":
        return m["tau"] >= th.get("tau_min", 0.9) and m["ell"] >= th.get("ell_min", 0.9)
    if op == "attention":
        return m["iota"] >= th.get("iota_min", 0.2)
    if op == "fourier":
        return m["phi"] >= th.get("phi_min", 0.9)
    return m["alpha"] >= th.get("alpha_min", 0.9) and m.get("targets_k99", n) < n


def score_version(groups, fig, ax):
    """Each cell: the layer's score (colour), beside the optimum's own score and the ratio of
    the two (text). A score tells nothing where the optimum of that dataset passes the test although it
    is another operator (global's mean operator is a Toeplitz band; a long band is nearly
    circulant; α is near 1 for any operator keeping the targets' subspace): those cells are
    hatched and greyed, so that a bright cell means the layer scores high on a score
    that separates the claim."""
    nk = len(groups)
    ratio = np.full((nk, len(OPERATORS)), np.nan)
    th = groups[0][1][0]["metrics"].get("thresholds", {})
    for i, (kind, runs) in enumerate(groups):
        ms = [r["metrics"] for r in runs]
        n = runs[0]["config"]["dataset"]["n"]
        claimed = ms[0].get("claimed")
        for j, (_, op, f) in enumerate(OPERATORS):
            layer = np.array([f(m) for m in ms])
            best = np.array([f(m["optimal"]) for m in ms])
            optimum = {**ms[0]["optimal"], "targets_k99": ms[0].get("targets_k99", n)}
            uninformative = op != claimed and passes_test(op, optimum, th, n)
            if op == "svd":  # α compares top-k subspaces; with k = n it is 1 for any M̄
                ks = values(runs, "targets_k99")
                uninformative |= op != claimed and ks.min() >= n
            ratio[i, j] = layer.mean()
            text = "{}\nM*: {}".format(*fmt_pair(layer, best))
            if best.mean() >= 0.05:  # the layer against the optimum's own score
                text += f"\nlayer / M* = {layer.mean() / best.mean():.2f}"
            if op == "svd":
                text += f"\ntargets' k99 = {fmt(ks)} of n = {n}"
                if ks.min() >= n:
                    text += "\n(α trivially 1)"
            won = sum(m["verdict"] == op for m in ms)
            if won:  # the verdict picks one column per run, in the spec's order
                emerged = sum(m["verdict"] == op and bool(m["emerged"]) for m in ms)
                text += f"\nverdict {won}/{len(ms)}, emerged {emerged}/{len(ms)}"
            if uninformative:
                text += "\nM* passes this test too:\nthe score cannot tell"
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.82",
                                       hatch="///", edgecolor="0.6", lw=0, zorder=2))
            ax.text(j, i, text, ha="center", va="center", fontsize=7.5, zorder=3,
                    fontweight="bold" if won else "normal",
                    color="black" if uninformative or ratio[i, j] > 0.55 else "white")
            if op == claimed:  # inset, so neighbouring boxes do not merge
                ax.add_patch(Rectangle((j - 0.47, i - 0.47), 0.94, 0.94, fill=False,
                                       ec="red", lw=3, zorder=4))
    im = ax.imshow(np.clip(ratio, 0, 1), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    fig.colorbar(im, ax=ax, label=f"score of {MBAR} (mean over seeds); hatched: uninformative")
    passes = {"convolution": f"τ ≥ {th.get('tau_min', '?')}, ℓ ≥ {th.get('ell_min', '?')}",
              "attention": f"ι ≥ {th.get('iota_min', '?')}, beats M_fix",
              "fourier": f"φ ≥ {th.get('phi_min', '?')}",
              "svd": f"α ≥ {th.get('alpha_min', '?')}, k < n"}
    ax.set_xticks(range(len(OPERATORS)),
                  [f"{c[0]}\n({passes[c[1]]})" for c in OPERATORS])
    ax.set_yticks(range(nk), [f"{k}\n({len(r)} seeds)" for k, r in groups])
    ax.xaxis.tick_top()
    ax.set_xlabel("red box: the seed paper's claim for the dataset; hatched: the dataset's "
                  "optimum passes this test although it is\nanother operator, so the score "
                  "cannot tell; bold: the verdict (first test passed in the order attention, "
                  f"convolution,\nFourier, SVD); it emerges with η ≥ {th.get('eta_min', '?')}")
    ax.set_ylabel("dataset")
    ax.set_title("Figure 2: emergence matrix (scores of the layer and of the optimum M*, "
                 "mean ± std over seeds)", pad=12)


# ---------------------------------------------------------------- figure 3

def smooth(x, width):
    """Running mean, so the noisy per-minibatch training MSE reads as a trend."""
    if width <= 1 or len(x) < width:
        return x
    c = np.cumsum(np.insert(x, 0, 0.0))
    return np.concatenate([c[1:width] / np.arange(1, width), (c[width:] - c[:-width]) / width])


def load_trajectory(d):
    """trajectory.csv (γ and the scores of M̄ at every evaluation) as float arrays; None for a
    run written before ufl recorded it."""
    if not os.path.exists(os.path.join(d, "trajectory.csv")):
        return None
    cols = {}
    with open(os.path.join(d, "trajectory.csv")) as f:
        for row in csv.DictReader(f):
            for k, v in row.items():
                cols.setdefault(k, []).append(float(v) if v != "" else math.nan)
    return {k: np.array(v) for k, v in cols.items()} if cols else None


TRAJECTORY_LABELS = {"gamma": "γ (gate)", "iota": "ι input dependence", "tau": "τ Toeplitz",
                     "ell": "ℓ locality", "phi": "φ Fourier", "alpha": "α alignment"}


def plot_trajectory(ax, kind, runs):
    """Panel under a kind's training curves: the scores of M̄ (on a fixed test subset) while
    training runs, mean over seeds, so one sees when (and whether) an operator forms."""
    trajectories = [load_trajectory(r["dir"]) for r in runs]
    trajectories = [t for t in trajectories if t is not None and len(t.get("step", [])) > 0]
    if not trajectories:
        ax.text(0.5, 0.5, "no trajectory.csv (runs made before it was recorded)",
                ha="center", va="center", transform=ax.transAxes, fontsize=9)
        ax.axis("off")
        return
    n = min(len(t["step"]) for t in trajectories)
    steps = trajectories[0]["step"][:n]
    for k, (column, label) in enumerate(TRAJECTORY_LABELS.items()):
        series = np.array([t[column][:n] for t in trajectories if column in t])
        if series.size == 0 or np.isnan(series).all():
            continue
        ax.plot(steps, np.nanmean(series, axis=0), "-", color=f"C{k}", lw=1.5, label=label)
    ax.set_ylim(-0.05, 1.5)  # headroom above 1 for the legend, off the curves
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_xlabel("training step")
    ax.set_ylabel(f"score of {MBAR}")
    ax.set_title(f"{kind}: γ and the structure scores while training "
                 f"(mean of {len(trajectories)} seeds)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", ncol=3, framealpha=0.9)


def fig_training(groups, out):
    cols = 2 if len(groups) > 1 else 1
    nrows = math.ceil(len(groups) / cols)
    # Each kind: its training curves, and under them its score trajectory.
    fig, grid = plt.subplots(2 * nrows, cols, figsize=(7 * cols, 7.4 * nrows), squeeze=False,
                             gridspec_kw={"height_ratios": [4.4, 3.0] * nrows})
    axes = grid[0::2]
    for k, (kind, runs) in enumerate(groups):
        plot_trajectory(grid[2 * (k // cols) + 1, k % cols], kind, runs)
    for ax in grid[1::2].flat[len(groups):]:
        ax.axis("off")
    for ax, (kind, runs) in zip(axes.flat, groups):
        losses = [load_loss(r["dir"]) for r in runs]
        n = min(len(l["step"]) for l in losses)  # runs of one kind share the step count
        steps = losses[0]["step"][:n]
        train = np.array([smooth(l["mse"][:n], max(1, n // 100)) for l in losses])
        test = np.array([l["test_mse"][:n] for l in losses])
        at = ~np.isnan(test).any(axis=0)
        ax.plot(steps, train.mean(axis=0), color="C0", alpha=0.55, lw=0.9,
                label="train MSE (minibatch, running mean)")
        t = test[:, at]
        ax.fill_between(steps[at], t.min(axis=0), t.max(axis=0), color="C1", alpha=0.25,
                        label="test MSE, min–max over seeds")
        ax.plot(steps[at], t.mean(axis=0), "o-", color="C1", ms=2.5, lw=1.8,
                label=f"test MSE, mean of {len(runs)} seeds")
        opt, fix = values(runs, "optimal_mse").mean(), values(runs, "fixed_mse").mean()
        if np.isclose(opt, fix, rtol=1e-9):  # the Gaussian datasets: M_fix is M*
            ax.axhline(opt, color="k", ls="--", lw=1.3, label=f"optimal = best fixed MSE {opt:.4f}")
        else:
            ax.axhline(opt, color="k", ls="--", lw=1.3, label=f"optimal MSE {opt:.4f}")
            ax.axhline(fix, color="C3", ls=":", lw=1.6, label=f"best fixed operator MSE {fix:.4f}")
        ax.set_yscale("log")
        lo = min(opt, fix, np.nanmin(t)) * 0.8
        ax.set_ylim(lo, max(np.nanmax(t[:, 0]), np.nanmax(train[:, n // 50:])) * 1.3)
        ax.set_title(f"{kind}: final test MSE {fmt(values(runs, 'test_mse'))}, "
                     f"η = {fmt(values(runs, 'eta'))}")
        ax.set_xlabel("training step")
        ax.set_ylabel("MSE (log)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8.5, loc="upper right")
    for ax in axes.flat[len(groups):]:
        ax.axis("off")
    fig.suptitle("Figure 3: training curves against the optimal and best fixed operator, and "
                 "the scores of M̄ while training",
                 fontsize=13)
    fig.tight_layout()
    save(fig, out, "fig3_training")


def save(fig, out, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=150)
    plt.close(fig)


# ---------------------------------------------------------------- main

def main(argv):
    root, out = arguments(__doc__, 2, argv=argv)
    runs = find_runs(root)
    if not runs:
        sys.exit(f"no finished runs (folders with metrics.json) under {root}")
    os.makedirs(out, exist_ok=True)
    # The universal layer is Section 8's subject; the plain `linear` mixer (a free n×n matrix),
    # trained on the same data, says which verdicts any trainable fixed matrix gets as well.
    mixer = lambda r: r["metrics"].get("mixer", r["config"].get("layer", {}).get("mixer",
                                                                               "universal"))
    groups = group_by_kind([r for r in runs if mixer(r) == "universal"])
    linear = dict(group_by_kind([r for r in runs if mixer(r) == "linear"]))
    text = write_tables(groups, out, linear)
    fig_operators(groups, out)
    fig_emergence(groups, out)
    fig_training(groups, out)
    print(text)
    print(f"{len(runs)} runs from {root}; wrote table.md, table.csv, "
          f"fig1_operators, fig2_emergence, fig3_training (.png, .svg) to {out}")


if __name__ == "__main__":
    main(sys.argv)
