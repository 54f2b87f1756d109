#!/usr/bin/python3
"""Turns the JSON lines written by bench/run_bench.sh into a Markdown table, a CSV and (for
--scaling) a log-log plot. Standard library only, except matplotlib for the plot.

usage: report.py bench   RAW.jsonl CSV MARKDOWN
       report.py scaling RAW.jsonl CSV PNG MARKDOWN
       report.py mixers  RAW.jsonl CSV MARKDOWN
RAW.jsonl holds the lines of ufl_step_bench, torch_peer.py, ufl_gemm_peak (tagged "kind":"gemm",
"impl":"eigen") and torch_peer.py --gemm-peak (tagged "kind":"gemm"), plus one "kind":"machine"
line written by the script.
"""
import csv
import json
import sys


def load(path):
    steps, gemm, machine = [], {}, {}
    with open(path) as lines:
        for line in lines:
            line = line.strip()
            if not line:
                continue
            record = json.loads(line)
            kind = record.get("kind", "step")
            if kind == "machine":
                machine.update(record)
            elif kind == "gemm":
                gemm[(record["impl"], record["threads"])] = record
            else:
                steps.append(record)
    return steps, gemm, machine


def fmt(value, digits=3):
    if value is None:
        return "—"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.{digits}g}" if abs(value) < 1 else f"{value:.2f}"


def times(ratio):
    return "—" if ratio is None else fmt(ratio) + "×"


def header(gemm, machine):
    out = []
    if machine:
        out.append(f"Machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores; "
                   f"load average {machine.get('load_start', '?')} at start, "
                   f"{machine.get('load_end', '?')} at end; OMP_WAIT_POLICY "
                   f"{machine.get('omp_wait_policy', '?')}; {machine.get('date', '')}")
    eigen = [gemm[k] for k in sorted(gemm) if k[0] == "eigen"]
    if eigen:
        out.append("Eigen float GEMM peak (ufl's yardstick, one single-threaded "
                   f"{eigen[0]['size']}³ GEMM per thread): " +
                   ", ".join(f"{g['threads']} thread{'s' if g['threads'] > 1 else ''} "
                             f"{g['gflops']:.1f} GFLOP/s" for g in eigen))
    torch = [gemm[k] for k in sorted(gemm) if k[0] == "torch"]
    if torch:
        out.append(f"torch {torch[0].get('torch', '?')} float GEMM ({torch[0]['size']}³ torch.mm): " +
                   ", ".join(f"{g['threads']} thread{'s' if g['threads'] > 1 else ''} "
                             f"{g['gflops']:.1f} GFLOP/s" for g in torch) +
                   f"; BLAS loaded by torch: `{torch[0].get('blas', '?')}`")
    return out


def ufl_row(steps, p):
    """ufl's two kernels at one point (n, d, r, batch, threads), and the automatic choice."""
    found = {s["variant"]: s for s in steps if s["impl"] == "ufl" and
             (s["n"], s["d"], s["r"], s["batch"], s["threads"]) == p}
    dense, structured = found.get("dense"), found.get("structured")
    choice = (dense or structured or {}).get("auto_kernel")
    return dense, structured, choice, found.get(choice)


def bench_report(raw, csv_path, md_path):
    steps, gemm, machine = load(raw)
    points = sorted({(s["n"], s["d"], s["r"], s["batch"], s["threads"]) for s in steps})
    find = lambda impl, variant, p: next(
        (s for s in steps if s["impl"] == impl and s["variant"] == variant and
         (s["n"], s["d"], s["r"], s["batch"], s["threads"]) == p), None)
    rows = []
    for p in points:
        n, d, r, batch, threads = p
        dense, structured, choice, ufl = ufl_row(steps, p)
        lookup, concat = find("torch", "lookup", p), find("torch", "concat", p)
        torch_runs = [t for t in (lookup, concat) if t is not None]
        best = min(torch_runs, key=lambda t: t["ms_per_step"]) if torch_runs else None
        one_thread = ufl_row(steps, (n, d, r, batch, 1))[3]
        peak = gemm.get(("eigen", threads), {}).get("gflops")
        row = {
            "n": n, "d": d, "r": r, "batch": batch, "threads": threads,
            "dense_ms": dense and dense["ms_per_step"],
            "structured_ms": structured and structured["ms_per_step"],
            "auto_kernel": choice,
            "ufl_ms": ufl and ufl["ms_per_step"], "ufl_ms_min": ufl and ufl["ms_min"],
            "ufl_ms_max": ufl and ufl["ms_max"],
            "dense_flops_per_step": dense and dense["flops_per_step"],
            "structured_flops_per_step": structured and structured["flops_per_step"],
            "torch_lookup_ms": lookup and lookup["ms_per_step"],
            "torch_concat_ms": concat and concat["ms_per_step"],
            "torch_best_ms": best and best["ms_per_step"],
            "torch_best_variant": best and best["variant"],
            "speedup_torch_over_ufl": (best["ms_per_step"] / ufl["ms_per_step"]
                                       if best and ufl else None),
            "ufl_gflops": ufl and ufl["gflops"],
            "gemm_peak_gflops": peak,
            "ufl_pct_of_peak": (100 * ufl["gflops"] / peak if ufl and peak else None),
            "ufl_thread_speedup": (one_thread["ms_per_step"] / ufl["ms_per_step"]
                                   if ufl and one_thread and threads > 1 else None),
            "torch_best_gflops": best and best["gflops"],
            "torch_flops_per_step": best and best["flops_per_step"],
            "torch_gemm_gflops": gemm.get(("torch", threads), {}).get("gflops"),
            "torch_blas": best and best.get("blas"),
        }
        rows.append(row)
    with open(csv_path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()) if rows else ["n"])
        writer.writeheader()
        writer.writerows(rows)

    mflop = lambda v: "—" if v is None else fmt(v / 1e6)
    lines = ["# ufl training-step benchmark", ""] + [f"- {h}" for h in header(gemm, machine)] + [
        "",
        "| n | d | threads | ufl dense ms | ufl structured ms | automatic choice | torch ms "
        "(lookup / concat) | speed-up (torch best / ufl automatic) | MFLOP/step dense / "
        "structured / torch | ufl GFLOP/s (% of GEMM peak) |",
        "|---:|---:|---:|---:|---:|:---|---:|---:|---:|---:|",
    ]
    for row in rows:
        torch_cell = f"{fmt(row['torch_lookup_ms'])} / {fmt(row['torch_concat_ms'])}"
        flops_cell = (f"{mflop(row['dense_flops_per_step'])} / "
                      f"{mflop(row['structured_flops_per_step'])} / "
                      f"{mflop(row['torch_flops_per_step'])}")
        peak_cell = (f"{fmt(row['ufl_gflops'])} ({fmt(row['ufl_pct_of_peak'])}%)"
                     if row['ufl_pct_of_peak'] else fmt(row['ufl_gflops']))
        lines.append(
            f"| {row['n']} | {row['d']} | {row['threads']} | {fmt(row['dense_ms'])} | "
            f"{fmt(row['structured_ms'])} | {row['auto_kernel'] or '—'} | {torch_cell} | "
            f"{times(row['speedup_torch_over_ufl'])} | {flops_cell} | {peak_cell} |")
    lines += [
        "",
        "batch 64, r = n, float32. ms/step: median over repeats of {minibatch copy, forward, "
        "backward, Adam}. ufl has two kernels for the universal layer (dense: U, V and S formed "
        "and multiplied; structured: the blocks of Ω = AΣBᵀ over X̃ = [X, I, 1], see "
        "bench/README.md); `ufl train` picks one by a FLOP cost model (automatic choice), and "
        "the speed-up compares that kernel with the faster torch variant. MFLOP/step counts "
        "matrix products only; GFLOP/s and % of peak are for the automatic choice, against the "
        "Eigen GEMM peak at the same thread count.",
    ]
    text = "\n".join(lines) + "\n"
    with open(md_path, "w") as out:
        out.write(text)
    print(text)


def scaling_report(raw, csv_path, png_path, md_path):
    steps, gemm, machine = load(raw)
    # series: ufl's two kernels and torch, each at its fastest thread count (and torch variant)
    series = lambda s: s["variant"] if s["impl"] == "ufl" else s["impl"]
    with open(csv_path, "w", newline="") as out:
        fields = ["impl", "variant", "auto_kernel", "n", "d", "r", "batch", "threads",
                  "ms_per_step", "ms_min", "ms_max", "gflops", "flops_per_step", "steps",
                  "repeats", "best_for_series"]
        writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        best = {}
        for s in steps:
            key = (series(s), s["n"])
            if key not in best or s["ms_per_step"] < best[key]["ms_per_step"]:
                best[key] = s
        for s in sorted(steps, key=lambda s: (s["impl"], s["n"], s["threads"], s["variant"])):
            writer.writerow(dict(s, best_for_series=int(best[(series(s), s["n"])] is s)))

    names = [k for k in ("dense", "structured", "torch") if any(b[0] == k for b in best)]
    ns = sorted({k[1] for k in best})
    choice_of = {s["n"]: s["auto_kernel"] for s in steps if s["impl"] == "ufl"}
    lines = ["# ufl training-step scaling in n (r = n, d = 8)", ""] + \
            [f"- {h}" for h in header(gemm, machine)] + ["",
             "| n | d | " + " | ".join(f"{'ufl ' if k != 'torch' else ''}{k} ms/step (threads)"
                                       for k in names) +
             " | automatic choice | MFLOP/step dense / structured | speed-up (torch / ufl "
             "automatic) |",
             "|---:|---:|" + "---:|" * len(names) + ":---|---:|---:|"]
    for n in ns:
        cells = []
        for name in names:
            s = best.get((name, n))
            cells.append(f"{fmt(s['ms_per_step'])} ({s['threads']})" if s else "—")
        choice = choice_of.get(n)
        ufl, torch = best.get((choice, n)), best.get(("torch", n))
        d = (ufl or torch or next(v for k, v in best.items() if k[1] == n))["d"]
        flops = " / ".join(fmt(best[(k, n)]["flops_per_step"] / 1e6) if (k, n) in best else "—"
                           for k in ("dense", "structured"))
        ratio = times(torch["ms_per_step"] / ufl["ms_per_step"] if ufl and torch else None)
        lines.append(f"| {n} | {d} | " + " | ".join(cells) +
                     f" | {choice or '—'} | {flops} | {ratio} |")
    lines += ["", "Each entry: the fastest thread count (and, for torch, homogeneous-coordinate "
              "variant) measured at that n; batch 64, float32. The automatic choice is the "
              "kernel `ufl train` uses at that size (a FLOP cost model)."]
    text = "\n".join(lines) + "\n"
    with open(md_path, "w") as out:
        out.write(text)
    print(text)
    impls = names

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("matplotlib is missing (apt-get install python3-matplotlib): no plot written")
        return
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    styles = {"dense": ("o-", "C0"), "structured": ("^-", "C2"), "torch": ("s-", "C1")}
    for impl in impls:
        xs = [n for n in ns if (impl, n) in best]
        ys = [best[(impl, n)]["ms_per_step"] for n in xs]
        marker, color = styles.get(impl, ("x-", "C3"))
        label = f"ufl {impl} kernel" if impl != "torch" else "torch"
        ax.plot(xs, ys, marker, color=color, label=f"{label} (best threads)")
    anchor_impl = "dense" if "dense" in impls else impls[0]
    xs = [n for n in ns if (anchor_impl, n) in best]
    if xs:
        n_ref = xs[-1]
        t_ref = best[(anchor_impl, n_ref)]["ms_per_step"]
        for power, style in ((2, ":"), (3, "--")):
            ax.plot(xs, [t_ref * (n / n_ref) ** power for n in xs], style, color="gray",
                    label={2: "∝ n²", 3: "∝ n³ (O(n²r), r = n)"}[power])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(ns))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FixedFormatter([str(n) for n in ns]))
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel("n (positions; r = n)")
    ax.set_ylabel("ms per training step (batch 64)")
    ax.set_title("Training step: forward + backward + Adam")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    print(f"plot: {png_path}")


def mixers_report(raw, csv_path, md_path):
    """One row per (n, d, threads, mixer): ms per step and the ratio to the universal layer's."""
    steps, _, machine = load(raw)
    order = ["universal", "attention", "convolution", "fourier", "lowrank", "linear"]
    rank = lambda m: (order.index(m) if m in order else len(order), m)
    rows = []
    for s in sorted(steps, key=lambda s: (s["n"], s["threads"], rank(s.get("mixer", "universal")))):
        mixer = s.get("mixer", "universal")
        universal = next((u for u in steps if u.get("mixer", "universal") == "universal" and
                          (u["n"], u["d"], u["threads"]) == (s["n"], s["d"], s["threads"])), None)
        rows.append({"n": s["n"], "d": s["d"], "r": s["r"], "threads": s["threads"],
                     "mixer": mixer, "ms_per_step": s["ms_per_step"], "ms_min": s["ms_min"],
                     "ms_max": s["ms_max"], "gflops": s["gflops"],
                     "ratio_to_universal": (s["ms_per_step"] / universal["ms_per_step"]
                                            if universal else None)})
    with open(csv_path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()) if rows else ["n"])
        writer.writeheader()
        writer.writerows(rows)
    lines = ["# ufl training step per mixer", ""] + [f"- {h}" for h in header({}, machine)] + [
        "", "| n | d | threads | mixer | ms/step (min–max) | × universal's step |",
        "|---:|---:|---:|---|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['n']} | {row['d']} | {row['threads']} | {row['mixer']} | "
                     f"{fmt(row['ms_per_step'])} ({fmt(row['ms_min'])}–{fmt(row['ms_max'])}) | "
                     f"{fmt(row['ratio_to_universal'])} |")
    lines += ["", "batch 64, float32, each mixer at its defaults (r = n; convolution w = 5). "
              "ms/step: median over repeats of {minibatch copy, forward, backward, Adam}."]
    text = "\n".join(lines) + "\n"
    with open(md_path, "w") as out:
        out.write(text)
    print(text)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "bench":
        bench_report(*sys.argv[2:])
    elif len(sys.argv) == 6 and sys.argv[1] == "scaling":
        scaling_report(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "mixers":
        mixers_report(*sys.argv[2:])
    else:
        sys.exit(__doc__)
