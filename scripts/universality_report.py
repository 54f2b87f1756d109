#!/usr/bin/python3
"""Universality report: every mixer on every dataset (docs/universality.md).

Usage:  /usr/bin/python3 scripts/universality_report.py RUNS_DIR OUT_DIR
        /usr/bin/python3 scripts/universality_report.py --publish OUT_DIR

The first form searches RUNS_DIR recursively for finished runs, groups them by mixer and dataset
(seeds averaged) and writes to OUT_DIR:
  table.md, table.csv          η (and η_fix) mean ± std per mixer × dataset, parameters per mixer,
                               the closest special case of the universal layer and of the
                               optimum, and the paper's three predictions checked with numbers
  fig_universality.{png,svg}   the mixer × dataset heat map of η, the diagonal marked
The second copies them to docs/universality/ and rewrites the results of docs/universality.md
(§6, between its universality markers). scripts/reproduce_universality.sh calls both.
"""
import csv
import math
import os
import pathlib
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import section8_report as s8  # noqa: E402  (runs by kind, number formats)
import ufl_runs  # noqa: E402
from script_arguments import arguments, refuse  # noqa: E402
from marked_section import replace_marked_section  # noqa: E402

np, plt, Rectangle = s8.np, s8.plt, s8.Rectangle

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- universality:begin -->", "<!-- universality:end -->"
MIXERS = ["universal", "attention", "convolution", "fourier", "lowrank", "linear"]
KINDS = s8.KINDS
# The diagonal: the dataset each special case is the paper's answer for (docs/universality.md).
HOME = {"convolution": "local", "attention": "global", "fourier": "periodic",
        "lowrank": "lowrank"}
SPECIAL = ["attention", "convolution", "fourier", "lowrank"]
WELL = 0.9  # "does well": η ≥ 0.9 (the verdict's eta_min); on global: η_fix > 1 (spec §2)


# ---------------------------------------------------------------- loading

def group(runs):
    """{(mixer, kind): [runs]}, runs sorted by seed."""
    groups = {}
    for r in sorted(runs, key=lambda r: (r["seed"], r["dir"])):
        mixer = r["metrics"].get("mixer", r["config"].get("layer", {}).get("mixer", "universal"))
        groups.setdefault((mixer, r["kind"]), []).append(r)
    return groups


def ordered(names, order):
    return [m for m in order if m in names] + sorted(n for n in names if n not in order)


def stat(runs, key):
    return s8.mean_std(s8.values(runs, key))


def does_well(runs, kind):
    """The spec's "well": η ≥ 0.9, or on global η_fix > 1 (mean over seeds)."""
    if not runs:
        return False
    if kind == "global":
        return stat(runs, "eta_fix")[0] > 1
    return stat(runs, "eta")[0] >= WELL


case_name = ufl_runs.case_name  # 'convolution w=7', 'lowrank k=4', 'fourier', 'attention'


def cases(runs, optimal=False):
    """'convolution w=7 5/5' over seeds, for the closest special case of the layer or M*."""
    found = []
    for r in runs:
        m = r["metrics"]["optimal"] if optimal else r["metrics"]
        if "closest_special_case" in m:
            found.append(case_name(m["closest_special_case"]))
    return s8.counts(found) if found else "—"


# ---------------------------------------------------------------- table and predictions

def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def predictions(groups, kinds):
    """The paper's three predictions (universality spec §2), each with its numbers and whether
    it held; returns markdown lines."""
    eta = lambda mixer, kind: stat(groups.get((mixer, kind), []), "eta")[0]
    eta_fix = lambda mixer, kind: stat(groups.get((mixer, kind), []), "eta_fix")[0]
    lines = []

    # 1. The diagonal.
    parts, held = [], True
    for mixer in SPECIAL:
        kind = HOME[mixer]
        runs = groups.get((mixer, kind), [])
        if not runs:
            continue
        ok = does_well(runs, kind)
        held &= ok
        number = (f"η_fix {eta_fix(mixer, kind):.3f}" if kind == "global"
                  else f"η {eta(mixer, kind):.3f}")
        parts.append(f"{mixer} on {kind}: {number} ({'well' if ok else '**not well**'})")
    lines.append(f"1. **Each special case does well on the data its structure fits** "
                 f"(η ≥ {WELL}; on global η_fix > 1) — {'held' if held else '**did not hold**'}: "
                 + "; ".join(parts) + ".")

    # 2. Off the diagonal.
    named = []
    if ("convolution", "periodic") in groups:
        v = eta("convolution", "periodic")
        named.append((v < WELL, f"a 5-tap convolution on periodic reaches η {v:.3f}"))
    for kind in kinds:
        runs = next((g for (m, k), g in groups.items() if k == kind), [])
        share = s8.values([{"metrics": r["metrics"]["optimal"]} for r in runs],
                          "negative_energy_share") if runs else np.array([])
        if ("attention", kind) in groups and len(share) and share.mean() > 0.01:
            v = eta("attention", kind)
            named.append((v < WELL, f"attention on {kind} (where {100 * share.mean():.0f}% of the "
                                    f"optimum's energy is negative) reaches η {v:.3f}"))
    fixed_global = [(eta_fix(m, "global"), m) for m in ["convolution", "fourier", "lowrank", "linear"]
                    if (m, "global") in groups]
    if fixed_global:
        best, who = max(fixed_global)
        named.append((best <= 1, f"the best fixed mixer on global ({who}) reaches η_fix {best:.4f}"))
    failing, others = [], []
    for mixer in SPECIAL:
        for kind in kinds:
            if kind == HOME[mixer] or (mixer, kind) not in groups:
                continue
            runs = groups[(mixer, kind)]
            value = (f"η_fix {eta_fix(mixer, kind):.3f}" if kind == "global"
                     else f"η {eta(mixer, kind):.3f}")
            (others if does_well(runs, kind) else failing).append(f"{mixer} on {kind} {value}")
    # One headline, the count: the prediction is about every off-diagonal cell.
    total = len(failing) + len(others)
    verdict = ("held in every cell" if not others else
               f"held for {len(failing)} of {total} cells, not for {len(others)}")
    text = (f"2. **Off the diagonal, special cases fail where their structure does not fit** — "
            f"{verdict}: " + "; ".join(t for _, t in named) + ". ")
    text += (f"{len(failing)} of {total} off-diagonal cells fall short"
             + (f"; these do well anyway: {', '.join(others)}." if others else "."))
    lines.append(text)

    # 3. The universal layer within 0.02 of the best special case everywhere.
    parts, held = [], True
    for kind in kinds:
        candidates = [(eta(m, kind), m) for m in SPECIAL if (m, kind) in groups]
        if ("universal", kind) not in groups or not candidates:
            continue
        best, who = max(candidates)
        mine = eta("universal", kind)
        ok = mine >= best - 0.02
        held &= ok
        parts.append(f"{kind}: universal η {mine:.3f} vs best special case {who} {best:.3f} "
                     f"({mine - best:+.3f})")
    everywhere = [m for m in MIXERS if all(does_well(groups.get((m, k), []), k) for k in kinds)]
    linear = ", ".join(f"{k} {eta('linear', k):.3f}" for k in kinds if ("linear", k) in groups)
    lines.append(f"3. **The universal layer is within 0.02 of the best special case on every "
                 f"dataset** — {'held' if held else '**did not hold**'}: " + "; ".join(parts) +
                 f". Mixers that do well on all four datasets: "
                 f"{', '.join(everywhere) if everywhere else 'none'}. "
                 f"linear (a plain fixed matrix) reaches η {linear}.")
    return lines


def share_table(groups, kinds):
    """The closest special case at parsimony shares 0.90, 0.95, 0.98 (closest_special_case.
    by_share) for the universal layer and the optimum, with how often none of the families
    with structure of their own keeps the share."""
    rows = []
    for kind in kinds:
        universal = groups.get(("universal", kind), [])
        if not universal or "by_share" not in universal[0]["metrics"].get("closest_special_case", {}):
            continue
        for who, optimal in (("universal layer", False), ("optimum", True)):
            runs = universal if not optimal else universal[:1]
            cells = []
            for index in range(3):
                picks = [case_name((r["metrics"]["optimal"] if optimal else r["metrics"])
                                   ["closest_special_case"]["by_share"][index]) for r in runs]
                cells.append(s8.counts(picks))
            none = sum(bool((r["metrics"]["optimal"] if optimal else r["metrics"])
                            ["closest_special_case"].get("none_of_the_families")) for r in runs)
            rows.append([kind if not optimal else "", who, *cells, f"{none}/{len(runs)}"])
    if not rows:
        return ""
    return ("Robustness of the closest special case to the parsimony share (and whether any "
            "family with structure of its own keeps 0.95·η; docs/planted.md §2):\n\n" +
            md_table(["dataset", "operator", "share 0.90", "share 0.95", "share 0.98",
                      "none of the families"], rows))


def ceiling_line(groups):
    """The in-class ceiling on global (the same data for every mixer of a seed)."""
    runs = [r for (m, k), g in groups.items() if k == "global" for r in g]
    ceiling = s8.values(runs, "eta_ceiling")
    if not len(ceiling):
        return ""
    return (f"On global, the best single-head dot-product softmax operator fitted directly to the "
            f"training set (scale of x_iᵀx_j, diagonal offset, value gain; `eta_ceiling`, "
            f"docs/experiment.md §3) reaches η {s8.fmt(ceiling)}: the universal layer and "
            f"attention reach the fraction of it given in brackets.")


def write_tables(groups, out):
    mixers = ordered({m for m, _ in groups}, MIXERS)
    kinds = ordered({k for _, k in groups}, KINDS)
    seeds = sorted({len(g) for g in groups.values()})

    rows, csv_rows = [], []
    for mixer in mixers:
        params = [r["metrics"].get("mixer_parameters") for k in kinds
                  for r in groups.get((mixer, k), [])]
        params = sorted({p for p in params if p is not None})
        cells = []
        for kind in kinds:
            runs = groups.get((mixer, kind), [])
            text = s8.fmt(s8.values(runs, "eta")) if runs else "—"
            if runs and HOME.get(mixer) == kind:
                text = f"**{text}**"
            cells.append(text)
            m, s = stat(runs, "eta")
            mf, sf = stat(runs, "eta_fix")
            csv_rows.append({"mixer": mixer, "dataset": kind, "runs": len(runs),
                             "parameters": params[0] if len(params) == 1 else "",
                             "eta_mean": m, "eta_std": s, "eta_fix_mean": mf, "eta_fix_std": sf,
                             "closest_special_case": cases(runs),
                             "test_mse_mean": stat(runs, "test_mse")[0]})
        global_fix = (s8.fmt(s8.values(groups[(mixer, "global")], "eta_fix"))
                      if (mixer, "global") in groups else "—")
        # η beside the in-class ceiling (docs/experiment.md §3) for the mixers that can route.
        if (mixer, "global") in groups and mixer in ("universal", "attention"):
            g = groups[(mixer, "global")]
            ceiling = s8.values(g, "eta_ceiling")
            if len(ceiling):
                j = kinds.index("global")
                cells[j] += f" ({s8.fmt(s8.values(g, 'eta') / ceiling)} of the ceiling)"
        rows.append([mixer, "/".join(map(str, params)) or "—", *cells, global_fix])

    case_rows = []
    for kind in kinds:
        any_runs = next((g for (m, k), g in groups.items() if k == kind), [])
        universal = groups.get(("universal", kind), [])
        fit = s8.values([{"metrics": r["metrics"].get("closest_special_case", {})}
                         for r in universal], "eta")
        optimum_case = cases(any_runs[:1], optimal=True)
        ceiling = s8.values(universal, "eta_ceiling")
        if any_runs and any_runs[0]["metrics"]["optimal"].get("closest_special_case", {}).get(
                "input_dependent") and len(ceiling):
            # The optimum's input-dependent candidate is chosen by its form (rows ≥ 0 with equal
            # sums), not by a fit: say how far a fitted single head gets (docs/universality.md).
            optimum_case += (f" (by form, not by a fit: the best single head reaches η "
                             f"{s8.fmt(ceiling)} of it)")
        case_rows.append([kind, optimum_case, cases(universal),
                          s8.fmt(fit) if len(fit) else "—",
                          s8.fmt(s8.values(universal, "eta")) if universal else "—"])

    with open(os.path.join(out, "table.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(csv_rows[0]))
        w.writeheader()
        w.writerows(csv_rows)

    text = "\n\n".join([
        "### Universality: every special case trained on its own, beside the universal layer",
        f"η = mse(M*)/mse(layer) on the held-out test set, mean ± sample std over seeds "
        f"({'/'.join(map(str, seeds))} runs per cell); bold: the special case on the data the "
        f"paper assigns it. On local, periodic and lowrank η_fix = η (M_fix is the optimum); on "
        f"global M_fix is the bar an input-dependent layer must beat (η_fix > 1). Parameters: "
        f"the mixer's own (W_v, d² = 256, comes on top for every mixer); lowrank at r = 4.",
        md_table(["mixer", "parameters", *kinds, "global η_fix"], rows),
        ceiling_line(groups),
        "Closest special case (parsimony, see docs/universality.md): the mixer with the fewest "
        "parameters whose fit keeps η(fit) ≥ 0.95·η; for the optimum M* (the same for every "
        "seed's data up to sampling) and for the trained universal layer (counts over seeds).",
        md_table(["dataset", "optimum's closest special case", "universal layer's",
                  "η of its fit", "universal η"], case_rows),
        share_table(groups, kinds),
        "The paper's three predictions, checked:",
        "\n".join(predictions(groups, kinds)),
    ]) + "\n"
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(text)
    return text


# ---------------------------------------------------------------- figure

def nines(eta):
    """-log10(1 − η), clipped: 0.9 → 1, 0.99 → 2, 0.999 → 3; η ≤ 0 → 0. On this scale 0.92 and
    1.0 are far apart, where a linear scale of η shows them the same colour."""
    return np.clip(-np.log10(np.clip(1.0 - np.asarray(eta, dtype=float), 1e-4, None)), 0, 4)


def fig_universality(groups, out):
    mixers = ordered({m for m, _ in groups}, MIXERS)
    kinds = ordered({k for _, k in groups}, KINDS)
    columns = kinds + (["global η_fix"] if "global" in kinds else [])
    colour = np.full((len(mixers), len(columns)), np.nan)
    fig, (ax, ax_fix) = plt.subplots(
        1, 2, figsize=(2.3 * len(columns) + 5.5, 1.05 * len(mixers) + 2.6),
        gridspec_kw={"width_ratios": [len(kinds), 1.25]})
    fix = np.full((len(mixers), 1), np.nan)
    for i, mixer in enumerate(mixers):
        for j, kind in enumerate(kinds):
            runs = groups.get((mixer, kind), [])
            if not runs:
                continue
            values = s8.values(runs, "eta")
            colour[i, j] = nines(values.mean())
            text = s8.fmt(values)
            ax.text(j, i, text.replace(" ± ", "\n± ", 1), ha="center", va="center",
                    fontsize=8.5, color="black" if colour[i, j] > 1.6 else "white",
                    fontweight="bold" if HOME.get(mixer) == kind else "normal")
            if HOME.get(mixer) == kind:
                ax.add_patch(Rectangle((j - 0.47, i - 0.47), 0.94, 0.94, fill=False,
                                       ec="red", lw=3))
        runs = groups.get((mixer, "global"), [])
        if runs:
            values = s8.values(runs, "eta_fix")
            fix[i, 0] = values.mean()
            ax_fix.text(0, i, s8.fmt(values).replace(" ± ", "\n± ", 1), ha="center",
                        va="center", fontsize=8.5,
                        color="white" if abs(values.mean() - 1) > 0.12 else "black",
                        fontweight="bold" if HOME.get(mixer) == "global" else "normal")
    im = ax.imshow(colour[:, :len(kinds)], cmap="viridis", vmin=0, vmax=3.5, aspect="auto")
    bar = fig.colorbar(im, ax=ax, fraction=0.05, pad=0.02)
    ticks = [0.0, 0.5, 0.9, 0.97, 0.99, 0.997, 0.999]
    bar.set_ticks(nines(ticks), labels=[f"{t:g}" for t in ticks])
    bar.set_label("η = mse(M*)/mse(layer), mean over seeds (scale: −log₁₀(1 − η))")
    params = {}
    for (mixer, _), runs in groups.items():
        for r in runs:
            if "mixer_parameters" in r["metrics"]:
                params[mixer] = r["metrics"]["mixer_parameters"]
    ax.set_yticks(range(len(mixers)),
                  [f"{m}\n({params[m]} params)" if m in params else m for m in mixers])
    ax.set_xticks(range(len(kinds)), kinds)
    ax.xaxis.tick_top()
    ax.set_xlabel("red box: the special case on the data the paper assigns it (the diagonal)")
    ax.set_title("η of each mixer on each dataset (mean ± std over seeds)", pad=12)
    # η_fix on global: the bar an input-dependent layer must beat is 1 (diverging at 1).
    im2 = ax_fix.imshow(fix, cmap="RdBu_r", vmin=0.7, vmax=1.3, aspect="auto")
    fig.colorbar(im2, ax=ax_fix, fraction=0.15, pad=0.04,
                 label="η_fix = mse(M_fix)/mse(layer) on global")
    ax_fix.set_yticks([])
    ax_fix.set_xticks([0], ["global η_fix"])
    ax_fix.xaxis.tick_top()
    ax_fix.set_xlabel("above 1 (red): beats every\nfixed operator")
    ax_fix.set_title("global: against M_fix", pad=12)
    fig.suptitle("Universality, measured: every special case trained on every dataset", y=0.995)
    fig.tight_layout()
    s8.save(fig, out, "fig_universality")


# ---------------------------------------------------------------- publishing

def publish(results):
    results = pathlib.Path(results)
    docs = ROOT / "docs" / "universality"
    docs.mkdir(parents=True, exist_ok=True)
    for name in ["table.md", "fig_universality.png", "fig_universality.svg"]:
        shutil.copyfile(results / name, docs / name)
    table = (results / "table.md").read_text().strip()
    section = "\n".join([
        BEGIN,
        "Regenerated by `bash scripts/reproduce_universality.sh` (6 mixers × 4 datasets × seeds "
        "1–5, default settings, lowrank mixer at `layer.rank = 4`); what the mixers are and how to "
        "read this: §1–§4 of this page.",
        "",
        table,
        "",
        "![η of each mixer on each dataset](universality/fig_universality.png)",
        END,
    ])
    page = ROOT / "docs" / "universality.md"
    replace_marked_section(page, BEGIN, END, section)
    print(f"updated {page.relative_to(ROOT)} and {docs}")


# ---------------------------------------------------------------- main

def main(argv):
    first, second = arguments(__doc__, 2, options=("--publish",), argv=argv)
    if first == "--publish":
        publish(second)
        return
    if second == "--publish":
        refuse(__doc__, "--publish comes first: --publish OUT_DIR")
    root, out = first, second
    runs = s8.find_runs(root)
    if not runs:
        sys.exit(f"no finished runs (folders with metrics.json) under {root}")
    os.makedirs(out, exist_ok=True)
    groups = group(runs)
    text = write_tables(groups, out)
    fig_universality(groups, out)
    print(text)
    print(f"{len(runs)} runs from {root}; wrote table.md, table.csv, fig_universality "
          f"(.png, .svg) to {out}")


if __name__ == "__main__":
    main(sys.argv)
