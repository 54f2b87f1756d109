#!/usr/bin/python3
"""The tables and the figure of issue 40's comparison on the mixed task copy_text
(scripts/reproduce_mixed.sh, docs/transformer.md §13, "The comparison").

    /usr/bin/python3 scripts/mixed_report.py RUNS_DIR OUT_DIR
    /usr/bin/python3 scripts/mixed_report.py --extend RUNS_DIR   > extend_lr.tsv
    /usr/bin/python3 scripts/mixed_report.py --tuned RUNS_DIR    > tuned_lr.tsv

RUNS_DIR holds the run folders (the complete ones listed in runs.csv beside it, `ufl collect`, and
the diverged ones: scripts/ufl_runs.py), named <size>-<arm>-s<seed> (the comparison),
control-<size>-<arm>-s<seed> (dataset.copy_source = shuffled) and tune-<size>-<arm>-lr<lr> (the
grid, seed 100, never reported); size d64 or d128; arm attention, convolution, hybrid,
universal, universal_g05, universal_rankn or distance. Writes
OUT_DIR/tables.md and OUT_DIR/fig_mixed.png and .svg, and prints the tables.
--extend prints, for each size and arm whose best grid rate is at the grid's edge, the rate one
step beyond it (size, arm, lr); --tuned prints each size and arm's chosen rate (size, arm, lr,
loss).

Rules, fixed before the runs:
- the stopping rule: the fixed budget (train.steps); a run is read at its last step by its final
  validation loss: total (metrics.json validation_loss), copied and fresh positions
  (labels.copied.validation_loss, labels.fresh.validation_loss), in nats per character;
- tuning: each size and arm trains at the rate with the lowest final total validation loss on
  seed 100 (diverged runs are out) among the grid 3e-4 1e-3 3e-3 1e-2 and, when the grid's best is
  its lowest (highest) rate, one step beyond: 1e-4 (3e-2), run once. A rate chosen at the edge of
  all the rates run is marked "edge": its best rate is not bracketed;
- intervals: mean over seeds ± the 95 % Student t interval, t(0.975, k − 1)·sd/√k for k seeds
  (none for one seed);
- verdict (a), attention copies: the upper end of attention's 95 % interval of copied loss is
  below the lower end of convolution's (the two intervals do not overlap, attention lower); with
  one seed per arm, attention's copied loss below convolution's (marked: one seed, no interval);
- verdict (b), convolution holds the fresh positions: convolution's mean fresh loss ≤
  attention's mean fresh loss + 0.01 nats;
- if (a) or (b) fails at a size, that size's comparison is VOID: the controls do not show that
  the task needs both tools there, and its rows say nothing about picking the right one;
- verdict (c), the shuffled control: in control-<size>-<arm>-s1 each arm's copied loss must be ≥
  its fresh loss − 0.15 nats (a model that does not copy scores the copied positions 0.13–0.15
  nats below the fresh ones: docs/transformer.md §13, "What the levels are"). An arm that fails it
  has found something on the copied positions other than copying; its copied loss in the
  comparison is marked, the comparison is not voided by it.
Heads (metrics.json layers[l].heads[k].kind, docs/transformer.md §5), counted over the
comparison's seeds, per arm and block: local/Toeplitz = local, self, previous-token, offset k (one
diagonal or a band); content = content (input-dependent: retrieval); position = low-rank (fixed,
input-independent, not a band: reads by position); other = none. A hybrid's heads are counted per
head mixer (the head's "mixer").
"""
import math
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ufl_runs  # noqa: E402
from script_arguments import arguments, refuse  # noqa: E402

SIZES = ["d64", "d128"]
SIZE_TITLE = {"d64": "D = 64 (2 blocks of 2 heads)",
              "d128": "D = 128 (4 blocks of 4 heads)"}
ARMS = ["attention", "convolution", "hybrid", "universal", "universal_g05", "universal_rankn",
        "distance"]
ARM_LABEL = {"universal": "universal (γ₀ 0.99)", "universal_g05": "universal, γ₀ = 0.5",
             "universal_rankn": "universal, rank n", "hybrid": "hybrid (½ attention, ½ conv.)"}
ARM_SHORT = {"universal": "universal", "universal_g05": "univ. γ₀=½",
             "universal_rankn": "univ. r=n", "hybrid": "hybrid", "attention": "attention",
             "convolution": "convolution", "distance": "distance"}
LR_GRID = [3e-4, 1e-3, 3e-3, 1e-2]
BEYOND = {"low": 1e-4, "high": 3e-2}
FRESH_MARGIN = 0.01   # verdict (b)
NGRAM_MARGIN = 0.15   # verdict (c)
KIND_GROUP = [("local/Toeplitz", lambda k: k in ("local", "self", "previous-token") or
               k.startswith("offset")),
              ("content", lambda k: k == "content"),
              ("position", lambda k: k == "low-rank"),
              ("other", lambda k: True)]
GATED = ("universal", "distance")  # the mixers with a learned gate γ
NAME = re.compile(r"^(?:(tune|control)-)?(d64|d128)-(\w+?)-(?:lr([0-9.e-]+)|s(\d+))$")


def load_runs(folder):
    """The complete and diverged runs of the study, each with part, size, arm, seed, lr."""
    runs = []
    for run in ufl_runs.load_runs(folder, diverged=True):
        match = NAME.match(run["name"])
        if not match or match.group(3) not in ARMS:
            continue
        prefix, size, arm, lr, seed = match.groups()
        if prefix == "tune" and lr is None or prefix != "tune" and seed is None:
            continue
        part = {"tune": "tune", "control": "control"}.get(prefix, "compare")
        train = run["config"].get("train", {})
        run.update(part=part, size=size, arm=arm, seed=100 if part == "tune" else int(seed),
                   lr=float(lr) if lr is not None else train.get("lr"),
                   steps=train.get("steps"), diverged=run["status"] == ufl_runs.DIVERGED)
        runs.append(run)
    return runs


def value(run, what):
    """The final validation loss of a run: what = total, copied or fresh (None if diverged)."""
    metrics = run["metrics"] or {}
    if run["diverged"]:
        return None
    if what == "total":
        return metrics.get("validation_loss")
    return metrics.get("labels", {}).get(what, {}).get("validation_loss")


def interval(values):
    """(mean, low, high) with the 95 % t interval, (mean, None, None) for one value, None for
    none."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    mean = statistics.mean(values)
    if len(values) < 2:
        return mean, None, None
    half = ufl_runs.student_t_quantile(0.975, len(values) - 1) * \
        statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def interval_text(result):
    if result is None:
        return "—"
    mean, low, high = result
    return f"{mean:.3f}" if low is None else f"{mean:.3f} [{low:.3f}, {high:.3f}]"


def select(runs, part, size=None, arm=None):
    return [r for r in runs if r["part"] == part and (size is None or r["size"] == size) and
            (arm is None or r["arm"] == arm)]


# ------------------------------------------------------------------------------------ tuning

def best_run(rows):
    done = [r for r in rows if not r["diverged"] and value(r, "total") is not None]
    return min(done, key=lambda r: value(r, "total")) if done else None


def extensions(runs):
    """{(size, arm): rate} one step beyond the grid's edge, from the grid's rates alone (so that
    the extension's own result never asks for another)."""
    wanted = {}
    for size in SIZES:
        for arm in ARMS:
            rows = [r for r in select(runs, "tune", size, arm)
                    if any(math.isclose(r["lr"], x) for x in LR_GRID)]
            if len({r["lr"] for r in rows}) < len(LR_GRID):
                continue  # the grid is not whole yet
            best = best_run(rows)
            if best is None:
                continue
            if math.isclose(best["lr"], LR_GRID[0]):
                wanted[(size, arm)] = BEYOND["low"]
            elif math.isclose(best["lr"], LR_GRID[-1]):
                wanted[(size, arm)] = BEYOND["high"]
    return wanted


def tuned(runs):
    """{(size, arm): (lr, run, edge)}: the best rate over every rate run, edge "lowest" or
    "highest" when it is at the edge of them, else ""."""
    chosen = {}
    for size in SIZES:
        for arm in ARMS:
            rows = select(runs, "tune", size, arm)
            best = best_run(rows)
            if best is None:
                continue
            rates = sorted({r["lr"] for r in rows})
            edge = ""
            if len(rates) > 1 and math.isclose(best["lr"], rates[0]):
                edge = "lowest"
            elif len(rates) > 1 and math.isclose(best["lr"], rates[-1]):
                edge = "highest"
            chosen[(size, arm)] = (best["lr"], best, edge)
    return chosen


# ------------------------------------------------------------------------------------ verdicts

def verdicts(runs, size):
    """{'a': (holds or None, text), 'b': …, 'c': {arm: (holds, copied, fresh)}, 'void': bool or
    None (None: attention or convolution missing)}."""
    out = {}
    attention = select(runs, "compare", size, "attention")
    convolution = select(runs, "compare", size, "convolution")
    if attention and convolution:
        a_copied = interval([value(r, "copied") for r in attention])
        c_copied = interval([value(r, "copied") for r in convolution])
        if a_copied is None or c_copied is None:
            out["a"] = (False, "an arm has no finished run")
        elif a_copied[1] is None or c_copied[1] is None:
            holds = a_copied[0] < c_copied[0]
            out["a"] = (holds, f"attention {a_copied[0]:.3f} {'<' if holds else '≥'} convolution "
                               f"{c_copied[0]:.3f} (one seed: no interval)")
        else:
            holds = a_copied[2] < c_copied[1]
            out["a"] = (holds, f"attention {interval_text(a_copied)} against convolution "
                               f"{interval_text(c_copied)}: upper end {a_copied[2]:.3f} "
                               f"{'<' if holds else '≥'} lower end {c_copied[1]:.3f}")
        a_fresh = interval([value(r, "fresh") for r in attention])
        c_fresh = interval([value(r, "fresh") for r in convolution])
        if a_fresh is None or c_fresh is None:
            out["b"] = (False, "an arm has no finished run")
        else:
            holds = c_fresh[0] <= a_fresh[0] + FRESH_MARGIN
            out["b"] = (holds, f"convolution {c_fresh[0]:.3f} {'≤' if holds else '>'} attention "
                               f"{a_fresh[0]:.3f} + {FRESH_MARGIN}")
        out["void"] = not (out["a"][0] and out["b"][0])
    else:
        out["void"] = None
    out["c"] = {}
    for arm in ARMS:
        control = [r for r in select(runs, "control", size, arm) if not r["diverged"]]
        if not control:
            continue
        copied, fresh = value(control[0], "copied"), value(control[0], "fresh")
        if copied is None or fresh is None:
            continue
        out["c"][arm] = (copied >= fresh - NGRAM_MARGIN, copied, fresh)
    return out


# ------------------------------------------------------------------------------------ tables

def arm_model(run):
    """The model of an arm in a few words: its width and rank where the arm pads them."""
    config = run["config"]
    layer, model = config.get("layer", {}), config.get("model", {})
    width, heads = model.get("width"), layer.get("heads")
    text = f"D = {width}, {model.get('depth')} × {heads} heads"
    if "rank" in layer:
        text += f", r = {layer['rank']}"
    if "gate_init" in layer:
        text += f", γ₀ = {layer['gate_init']:g}"
    return text


def thousands(number, sign=False):
    """'148 164' (with sign: '+124'), '?' for None."""
    if number is None:
        return "?"
    return format(number, "+,d" if sign else ",d").replace(",", " ")


def grid_text(runs, size, arm, chosen):
    rows = sorted(select(runs, "tune", size, arm), key=lambda r: r["lr"])
    cells = []
    for r in rows:
        v = value(r, "total")
        beyond = "" if any(math.isclose(r["lr"], x) for x in LR_GRID) else " (beyond the grid)"
        cell = f"{r['lr']:g}{beyond}: " + ("✗" if r["diverged"] else f"{v:.3f}" if v is not None
                                            else "?")
        if chosen and math.isclose(r["lr"], chosen[0]):
            cell = f"**{cell}**"
        cells.append(cell)
    return " · ".join(cells)


def size_tables(runs, size, lines):
    compare = select(runs, "compare", size)
    control = select(runs, "control", size)
    if not compare and not control:
        return
    chosen = tuned(runs)
    verdict = verdicts(runs, size)
    seeds = sorted({r["seed"] for r in compare})
    steps = sorted({r["steps"] for r in compare + control if r["steps"]})
    lines += [f"## {SIZE_TITLE[size]}", ""]
    seed_text = f"Seed {seeds[0]}" if len(seeds) == 1 else \
        f"Seeds {', '.join(map(str, seeds))}" if seeds else "No compared seed"
    lines += [f"{seed_text}; {'/'.join(map(str, steps))} steps, read at the last (the fixed "
              "budget).", ""]
    if verdict["void"]:
        failed = " and ".join(f"({k})" for k in ("a", "b") if not verdict[k][0])
        lines += [f"**VOID**: verdict {failed} fails (below): the controls do not show that "
                  "this size's task needs both tools, so the rows say nothing about the universal "
                  "layer picking one.", ""]
    elif verdict["void"] is None:
        lines += ["No verdict: attention or convolution did not run.", ""]
    else:
        lines += ["Verdicts (a) and (b) hold: the comparison stands.", ""]

    # Parameters and rates.
    lines += ["### Parameters and rates", "",
              "Grid: final total validation loss (nats) on seed 100 at each rate, **bold** the "
              "chosen; ✗ diverged; edge: the chosen rate is the lowest or highest run (not "
              "bracketed).", "",
              "| arm | model | parameters | − universal | rate | edge | grid |",
              "|---|---|---|---|---|---|---|"]
    reference = next((r["metrics"].get("parameters") for r in runs
                      if r["size"] == size and r["arm"] == "universal" and r["metrics"] and
                      r["metrics"].get("parameters")), None)
    for arm in ARMS:
        arm_runs = [r for r in runs if r["size"] == size and r["arm"] == arm]
        if not arm_runs:
            continue
        example = arm_runs[0]
        count = next((r["metrics"].get("parameters") for r in arm_runs
                      if r["metrics"] and r["metrics"].get("parameters")), None)
        versus = "—"
        if count and reference:
            versus = (f"{thousands(count - reference, sign=True)} "
                      f"({100 * (count - reference) / reference:+.2f} %)")
        pick = chosen.get((size, arm))
        rates = sorted({f"{r['lr']:g}" for r in select(runs, "compare", size, arm) +
                        select(runs, "control", size, arm) if r["lr"] is not None})
        rate = "/".join(rates) if rates else (f"{pick[0]:g}" if pick else "—")
        if not pick:
            rate += " (not tuned)"
        edge = pick[2] if pick else ""
        lines.append(f"| {ARM_LABEL.get(arm, arm)} | {arm_model(example)} | {thousands(count)} | "
                     f"{versus} | {rate} | {edge} | {grid_text(runs, size, arm, pick)} |")
    lines.append("")

    # The comparison.
    lines += ["### Final validation loss (nats per character)", "",
              "Mean over the seeds with the 95 % t interval.", "",
              "| arm | seeds | copied | fresh | total | diverged | control (c) |",
              "|---|---|---|---|---|---|---|"]
    for arm in ARMS:
        arm_runs = select(runs, "compare", size, arm)
        if not arm_runs:
            continue
        cells = [interval_text(interval([value(r, w) for r in arm_runs]))
                 for w in ("copied", "fresh", "total")]
        control_cell = "—"
        if arm in verdict["c"]:
            control_cell = "holds" if verdict["c"][arm][0] else \
                "**fails**: its copied loss is not copying alone"
        lines.append(f"| {ARM_LABEL.get(arm, arm)} | {len(arm_runs)} | {' | '.join(cells)} | "
                     f"{sum(r['diverged'] for r in arm_runs)} | {control_cell} |")
    lines.append("")

    # The verdicts.
    lines += ["### The controls", ""]
    for key, title in (("a", "(a) attention copies"), ("b", "(b) convolution holds the fresh "
                                                              "positions")):
        if key in verdict:
            holds, text = verdict[key]
            lines.append(f"- {title}: {'holds' if holds else '**fails**'}: {text}.")
    if verdict["c"]:
        lines += ["- (c) the shuffled control (seed 1): every arm's copied loss ≥ its fresh loss "
                  f"− {NGRAM_MARGIN}: "
                  f"{'holds' if all(v[0] for v in verdict['c'].values()) else '**fails**'} "
                  f"({sum(v[0] for v in verdict['c'].values())}/{len(verdict['c'])} arms).", "",
                  "| arm | control: copied | control: fresh | copied − fresh | (c) | comparison's "
                  "copied (seed 1) − control's copied |", "|---|---|---|---|---|---|"]
        for arm, (holds, copied, fresh) in verdict["c"].items():
            same = [r for r in select(runs, "compare", size, arm) if r["seed"] == 1]
            copying = value(same[0], "copied") if same else None
            gap = f"{copying - copied:+.3f}" if copying is not None else "—"
            lines.append(f"| {ARM_LABEL.get(arm, arm)} | {copied:.3f} | {fresh:.3f} | "
                         f"{copied - fresh:+.3f} | {'holds' if holds else '**fails**'} | {gap} |")
    lines.append("")
    heads_table(runs, size, lines)


def head_group(kind):
    return next(name for name, test in KIND_GROUP if test(kind))


def heads_table(runs, size, lines):
    compare = select(runs, "compare", size)
    if not any((r["metrics"] or {}).get("layers") for r in compare):
        return
    groups = [name for name, _ in KIND_GROUP]
    lines += ["### What each block's heads became", "",
              "Heads of every seed of the comparison (metrics.json `layers[l].heads[k].kind`), "
              "counted as local/Toeplitz (local, self, previous-token, offset k), content "
              "(input-dependent), position (low-rank: fixed, not a band), other (none); γ the "
              "mean gate of the gated heads at the end.", "",
              "| arm | heads | block | " + " | ".join(groups) + " | γ |",
              "|---|---|---|" + "---|" * len(groups) + "---|"]
    for arm in ARMS:
        arm_runs = [r for r in compare if r["arm"] == arm and (r["metrics"] or {}).get("layers")]
        if not arm_runs:
            continue
        table = {}  # (head mixer, block) → {group: count}, gammas
        for run in arm_runs:
            for index, layer in enumerate(run["metrics"]["layers"]):
                for head in layer.get("heads", []):
                    mixer = head.get("mixer", run["config"].get("layer", {}).get("mixer"))
                    if not isinstance(mixer, str):
                        mixer = "?"
                    counts, gammas = table.setdefault((mixer, index + 1), ({}, []))
                    group = head_group(str(head.get("kind", "none")))
                    counts[group] = counts.get(group, 0) + 1
                    if mixer in GATED and head.get("gamma") is not None:
                        gammas.append(head["gamma"])
        mixers = sorted({m for m, _ in table})
        for (mixer, block), (counts, gammas) in sorted(table.items()):
            who = mixer if len(mixers) > 1 or arm == "hybrid" else "all"
            gamma = f"{statistics.mean(gammas):.3f}" if gammas else "—"
            lines.append(f"| {ARM_LABEL.get(arm, arm)} | {who} | {block} | " +
                         " | ".join(str(counts.get(g, 0)) for g in groups) + f" | {gamma} |")
    lines.append("")


# ------------------------------------------------------------------------------------ figure

def figure(runs, out):
    sizes = [s for s in SIZES if select(runs, "compare", s) or select(runs, "control", s)]
    if not sizes:
        return False
    fig, axes = plt.subplots(len(sizes), 2, figsize=(13, 4.2 * len(sizes)), squeeze=False)
    for row, size in enumerate(sizes):
        arms = [a for a in ARMS if select(runs, "compare", size, a) or
                select(runs, "control", size, a)]
        verdict = verdicts(runs, size)
        state = {True: "VOID", False: "stands", None: "no verdict"}[verdict["void"]]
        for column, what in enumerate(("copied", "fresh")):
            ax = axes[row][column]
            for x, arm in enumerate(arms):
                values = [(r["seed"], value(r, what)) for r in select(runs, "compare", size, arm)]
                values = [(s, v) for s, v in values if v is not None]
                for i, (_, v) in enumerate(sorted(values)):
                    ax.plot(x + 0.08 * (i - (len(values) - 1) / 2), v, "o", color="C0",
                            markersize=5, alpha=0.8, label="seed" if x == 0 and i == 0 else None)
                if values:
                    mean = statistics.mean(v for _, v in values)
                    ax.plot([x - 0.25, x + 0.25], [mean, mean], "-", color="C0", linewidth=2.5,
                            label="mean over seeds" if x == 0 else None)
                control = [value(r, what) for r in select(runs, "control", size, arm)]
                control = [v for v in control if v is not None]
                if control:
                    ax.plot(x + 0.3, control[0], "x", color="C3", markersize=9, markeredgewidth=2,
                            label="shuffled control (seed 1)"
                            if not any(t.get_label() == "shuffled control (seed 1)"
                                       for t in ax.lines) else None)
            ax.set_xticks(range(len(arms)))
            ax.set_xticklabels([ARM_SHORT[a] for a in arms], rotation=20)
            ax.set_ylabel(f"{what} positions: final validation loss (nats)")
            ax.set_title(f"{SIZE_TITLE[size]}: {what} positions (comparison {state})",
                         fontsize=10)
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=8)
    fig.suptitle("copy_text: loss on the copied and the fresh positions per arm", fontsize=11)
    fig.tight_layout()
    for extension in ("png", "svg"):
        fig.savefig(os.path.join(out, f"fig_mixed.{extension}"), dpi=110)
    plt.close(fig)
    return True


# ------------------------------------------------------------------------------------ main

def main(runs_dir, out):
    runs = load_runs(runs_dir)
    os.makedirs(out, exist_ok=True)
    lines = ["# Issue 40's comparison on copy_text (scripts/reproduce_mixed.sh)", "",
             "Rules (fixed before the runs; scripts/mixed_report.py states them whole): each run "
             "is read at the end of its fixed budget by its final validation loss; (a) attention "
             "copies: the upper end of attention's 95 % t interval of copied loss is below the "
             "lower end of convolution's (one seed: the point values); (b) convolution's mean "
             f"fresh loss ≤ attention's + {FRESH_MARGIN}; a size where (a) or (b) fails is VOID; "
             "(c) in the shuffled control every arm's copied loss ≥ its fresh loss − "
             f"{NGRAM_MARGIN} nats (the n-gram margin of docs/transformer.md §13).", ""]
    if not select(runs, "tune"):
        lines += ["No tune part ran: every rate is the one given (quick mode: the config's 1e-3, "
                  "not tuned). This is not the comparison.", ""]
    for size in SIZES:
        size_tables(runs, size, lines)
    if figure(runs, out):
        lines += ["![copied and fresh loss per arm](fig_mixed.png)", "",
                  "*fig_mixed*: the final validation loss on the copied (left) and fresh (right) "
                  "positions of every arm, one dot per seed and a bar at their mean, the shuffled "
                  "control's (seed 1) as a red ×; each panel's title says whether the size's "
                  "comparison stands.", ""]
    with open(os.path.join(out, "tables.md"), "w") as handle:
        handle.write("\n".join(lines))
    print("\n".join(lines))


def print_extensions(runs_dir):
    for (size, arm), lr in sorted(extensions(load_runs(runs_dir)).items()):
        print(f"{size}\t{arm}\t{lr:g}")


def print_tuned(runs_dir):
    for (size, arm), (lr, run, _) in sorted(tuned(load_runs(runs_dir)).items()):
        print(f"{size}\t{arm}\t{lr:g}\t{value(run, 'total')}")


if __name__ == "__main__":
    first, second = arguments(__doc__, 2, options=("--tuned", "--extend"))
    if first == "--tuned":
        print_tuned(second)
    elif first == "--extend":
        print_extensions(second)
    elif second.startswith("--"):
        refuse(__doc__, f"{second} comes first: {second} RUNS_DIR")
    else:
        main(first, second)
