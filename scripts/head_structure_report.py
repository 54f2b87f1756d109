#!/usr/bin/python3
"""Tables of the seeds' measures over several token runs (docs/head_structure.md §3).

    /usr/bin/python3 scripts/head_structure_report.py RUN_DIR [RUN_DIR ...]

Reads each RUN_DIR/heads.json (and metrics.json for each head's kind) and prints three Markdown
tables: seed 001 (k99, k90 and effective rank of M(X), medians over heads of each head's median
over windows, trained and at initialisation; the loss with every head truncated to rank k), seed
002 (the distance-form gap and the key-norm variation, median and range over heads) and seed 003
(per head: its kind, Ω's k99, and what Ω's top part reads).
"""
import json
import os

import numpy as np

from script_arguments import arguments


def load(run):
    with open(os.path.join(run, "heads.json")) as handle:
        heads = json.load(handle)
    with open(os.path.join(run, "metrics.json")) as handle:
        metrics = json.load(handle)
    kinds = {(layer["block"], head["head"]): head.get("kind", "?")
             for layer in metrics.get("layers", []) for head in layer.get("heads", [])}
    return heads, metrics, kinds


def all_heads(heads):
    for block in heads["blocks"]:
        for head in block["heads"]:
            yield block["block"], head


def median_range(values, digits=2):
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return "—"
    return (f"{np.median(values):.{digits}f} ({values.min():.{digits}f}–"
            f"{values.max():.{digits}f})")


def name_of(run, metrics):
    return f"{os.path.basename(os.path.normpath(run))} ({metrics.get('mixer')}, {metrics.get('dataset')})"


def main():
    runs = arguments(__doc__, 1, -1)
    loaded = [(run, *load(run)) for run in runs]

    print("Seed 001: spectra of each head's M(X) (medians over heads of each head's median over "
          "windows; range over heads)\n")
    print("| run | k99 | k90 | effective rank | k99 at init | uniform causal k99 |")
    print("|---|---|---|---|---|---|")
    for run, heads, metrics, _ in loaded:
        stats = {key: [h["spectrum"][key]["median"] for _, h in all_heads(heads)]
                 for key in ("k99", "k90", "effective_rank")}
        init = [h["spectrum_at_init"]["k99"]["median"] for _, h in all_heads(heads)]
        print(f"| {name_of(run, metrics)} | {median_range(stats['k99'], 0)} | "
              f"{median_range(stats['k90'], 0)} | {median_range(stats['effective_rank'], 1)} | "
              f"{median_range(init, 0)} | {heads['uniform_causal_average']['k99']} |")
    print("\nSeed 001: validation loss over the windows with every head's M truncated to rank k\n")
    # The ranks of every run (runs of other n truncate at other ranks), and the gap at rank 16,
    # or at the largest rank every run has when n ≤ 16 leaves no rank 16 below full.
    truncations = [{row["rank"]: row["loss"] for row in heads["truncation"]}
                   for _, heads, _, _ in loaded]
    ranks = sorted(set().union(*truncations))
    shared = set.intersection(*(set(losses) for losses in truncations))
    gap_rank = 16 if 16 in shared else max(shared, default=None)
    cell = lambda losses, k: f"{losses[k]:.3f}" if k in losses else "—"  # noqa: E731
    gap_title = f"k = {gap_rank} − full" if gap_rank is not None else "gap"
    print("| run | " + " | ".join(f"k = {k}" for k in ranks) + f" | full | {gap_title} |")
    print("|---|" + "---|" * (len(ranks) + 2))
    for (run, heads, metrics, _), losses in zip(loaded, truncations):
        gap = (f"{losses[gap_rank] - heads['full_loss']:+.3f}" if gap_rank is not None
               else "— (no truncated rank)")
        print(f"| {name_of(run, metrics)} | " + " | ".join(cell(losses, k) for k in ranks) +
              f" | {heads['full_loss']:.3f} | {gap} |")

    print("\nSeed 002: distance-form gap (0 = the distance form) and key-norm variation "
          "(medians over windows; median and range over heads)\n")
    print("| run | gap | key-norm variation | gap at init |")
    print("|---|---|---|---|")
    for run, heads, metrics, _ in loaded:
        def medians(key, value):
            return [h[key][value]["median"] for _, h in all_heads(heads)
                    if key in h and value in h[key]]
        if any(h.get("distance_form", {}).get("exact") for _, h in all_heads(heads)):
            print(f"| {name_of(run, metrics)} | 0 (distance scores: exact) | — | — |")
            continue
        print(f"| {name_of(run, metrics)} | {median_range(medians('distance_form', 'gap'))} | "
              f"{median_range(medians('distance_form', 'key_norm_variation'))} | "
              f"{median_range(medians('distance_form_at_init', 'gap'))} |")

    print("\nSeed 003: Ω per head, and what its top rank-one part D₁ reads "
          "(shares of the unit query / key vector: token, position, bias)\n")
    print("| run | head | kind | Ω k99 | σ₁ | query reads (t / p / b) | key reads (t / p / b) |")
    print("|---|---|---|---|---|---|---|")
    for run, heads, metrics, kinds in loaded:
        for block, head in all_heads(heads):
            if "omega" not in head or not head["omega"]["parts"]:
                continue
            part = head["omega"]["parts"][0]
            reads = {side: " / ".join(f"{part[side][r]:.2f}" for r in ("token", "position", "bias"))
                     for side in ("query", "key")}
            print(f"| {os.path.basename(os.path.normpath(run))} | {block}.{head['head']} | "
                  f"{kinds.get((block, head['head']), '?')} | {head['omega']['k99']} | "
                  f"{part['sigma']:.3f} | {reads['query']} | {reads['key']} |")


if __name__ == "__main__":
    main()
