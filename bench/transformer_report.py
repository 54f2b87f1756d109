#!/usr/bin/python3
"""The table of bench/run_transformer_bench.sh: ufl's transformer step against the PyTorch peer's.

    transformer_report.py RAW.jsonl OUT.md OUT.csv

RAW holds one JSON line per measurement: ufl_gemm_peak's ("impl": "gemm_peak"), then
ufl_transformer_bench's ("impl": "ufl") and torch_peer.py transformer --bench's ("impl": "torch"),
each with the "config" it ran. The table gives per configuration, mixer and thread count both
step times, ufl's speed-up over the peer's best thread count, the step's FLOPs, ufl's GFLOP/s and
its share of the GEMM peak at that thread count, and the peak memory of both benchmark processes.
Below it, the goals of docs/transformer.md §8 against the numbers.
"""
import csv
import json
import sys


def main(raw_path, md_path, csv_path):
    rows = [json.loads(line) for line in open(raw_path) if line.strip()]
    peak = {r["threads"]: r["gflops"] for r in rows if r.get("impl") == "gemm_peak"}
    ufl = {(r["config"], r["mixer"], r["threads"]): r for r in rows if r.get("impl") == "ufl"}
    torch = {(r["config"], r["mixer"], r["threads"]): r for r in rows if r.get("impl") == "torch"}

    def torch_best(config, mixer):
        times = [r["ms_per_step"] for (c, m, _), r in torch.items() if c == config and m == mixer]
        return min(times) if times else None

    lines = [
        "| config | mixer | threads | ufl ms/step | torch ms/step | ufl speed-up over torch's best "
        "| GFLOP/step | ufl GFLOP/s | % of GEMM peak | peak memory ufl / torch |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    table = []
    for key in sorted(ufl, key=lambda k: (k[0] != "reference", k[1], k[2])):
        config, mixer, threads = key
        u, t = ufl[key], torch.get(key)
        best = torch_best(config, mixer)
        speedup = best / u["ms_per_step"] if best else None
        share = 100 * u["gflops"] / peak[threads] if threads in peak else None
        memory = (f"{u.get('peak_memory_bytes', 0) / 1e6:.0f} / "
                  f"{t['peak_memory_bytes'] / 1e6:.0f} MB" if t else "—")
        cells = [config, mixer, str(threads), f"{u['ms_per_step']:.2f}",
                 f"{t['ms_per_step']:.2f}" if t else "—", f"{speedup:.2f}×" if speedup else "—",
                 f"{u['flops_per_step'] / 1e9:.2f}", f"{u['gflops']:.1f}",
                 f"{share:.0f}%" if share is not None else "—", memory]
        lines.append("| " + " | ".join(cells) + " |")
        table.append({"config": config, "mixer": mixer, "threads": threads,
                      "ufl_ms": u["ms_per_step"], "torch_ms": t["ms_per_step"] if t else "",
                      "speedup_over_torch_best": speedup or "", "flops": u["flops_per_step"],
                      "ufl_gflops": u["gflops"], "percent_of_peak": share or "",
                      "ufl_peak_bytes": u.get("peak_memory_bytes", ""),
                      "torch_peak_bytes": t["peak_memory_bytes"] if t else ""})
    lines.append("")
    lines.append("GEMM peak (ufl_gemm_peak, Eigen): " +
                 ", ".join(f"{p:.0f} GFLOP/s at {k} thread{'s' if k > 1 else ''}"
                           for k, p in sorted(peak.items())) + ".")

    # The goals, where the numbers to judge them are there.
    def ms(config, mixer, threads):
        r = ufl.get((config, mixer, threads))
        return r["ms_per_step"] if r else None

    top = max(peak) if peak else 2
    goals = []
    attention, best = ms("reference", "attention", top), torch_best("reference", "attention")
    if attention and best:
        goals.append(f"reference, attention, {top} threads: {best / attention:.2f}× torch's best "
                     f"(goal ≥ 2.5×)")
    for config in ("reference", "larger"):
        for threads in sorted(peak):
            a, u = ms(config, "attention", threads), ms(config, "universal", threads)
            if a and u:
                goals.append(f"{config}, {threads} thread{'s' if threads > 1 else ''}: universal "
                             f"{u / a:.2f}× attention's step (goal ≤ 1.25×)")
    large = ufl.get(("larger", "attention", top))
    best = torch_best("larger", "attention")
    if large and best:
        goals.append(f"larger, attention, {top} threads: {best / large['ms_per_step']:.2f}× "
                     f"torch's best (goal ≥ 2×), {100 * large['gflops'] / peak[top]:.0f}% of the "
                     f"GEMM peak (goal ≥ 50%)")
    if goals:
        lines.append("")
        lines += [f"- {g}" for g in goals]
    with open(md_path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    with open(csv_path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]) if table else ["config"])
        writer.writeheader()
        writer.writerows(table)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
