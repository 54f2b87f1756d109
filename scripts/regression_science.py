#!/usr/bin/python3
"""Compares two regression sets (scripts/regression.sh) by their science, for a change that is meant
to move results by rounding (docs/building.md, "Results that move"): every verdict and every other
text or true/false value of each run's metrics.json must be equal, and every number within a
tolerance (relative --rtol, or absolute --atol for values near zero). Bit-identity is
scripts/compare_runs.py's question; this is the weaker one that holds when only the last bits move.

Usage:  /usr/bin/python3 scripts/regression_science.py BEFORE AFTER [--rtol 0.02] [--atol 0.005]

Prints one line per differing value (at most --show of them, then how many more) and a summary
per run; exit 0 when every run agrees, 1 when one does not (or a run is missing on one side),
2 for bad arguments.
"""
import argparse
import json
import math
import os
import sys


def runs(root):
    found = {}
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(subdirs)
        if "metrics.json" in files and "manifest.json" in files:
            found[os.path.relpath(d, root)] = os.path.join(d, "metrics.json")
            subdirs[:] = []
    return found


def differences(before, after, rtol, atol, path=""):
    """(path, before, after, kind) for every value of `before` that `after` does not match."""
    if isinstance(before, dict):
        if not isinstance(after, dict):
            return [(path, before, after, "type")]
        out = []
        for key, value in before.items():
            if key not in after:
                out.append((f"{path}.{key}", value, None, "missing"))
            else:
                out += differences(value, after[key], rtol, atol, f"{path}.{key}")
        return out
    if isinstance(before, list):
        if not isinstance(after, list) or len(after) != len(before):
            return [(path, f"list of {len(before)}", f"{type(after).__name__}", "shape")]
        out = []
        for k, (b, a) in enumerate(zip(before, after)):
            out += differences(b, a, rtol, atol, f"{path}[{k}]")
        return out
    if isinstance(before, bool) or isinstance(before, str) or before is None:
        return [] if before == after else [(path, before, after, "verdict")]
    if isinstance(before, (int, float)):
        if not isinstance(after, (int, float)) or isinstance(after, bool):
            return [(path, before, after, "type")]
        if math.isnan(before) and math.isnan(after):
            return []
        if math.isinf(before) or math.isinf(after):
            return [] if before == after else [(path, before, after, "number")]
        if abs(after - before) <= max(atol, rtol * abs(before)):
            return []
        return [(path, before, after, "number")]
    return [] if before == after else [(path, before, after, "value")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rtol", type=float, default=0.02)
    parser.add_argument("--atol", type=float, default=0.005)
    parser.add_argument("--show", type=int, default=8, help="differences printed per run")
    args = parser.parse_args()
    for folder in (args.before, args.after):
        if not os.path.isdir(folder):
            parser.error(f"{folder} is not a folder")
    before, after = runs(args.before), runs(args.after)
    if not before:
        parser.error(f"{args.before} holds no run folders")
    failed = 0
    for name in sorted(before):
        if name not in after:
            print(f"{name}: missing in {args.after}")
            failed += 1
            continue
        with open(before[name]) as b, open(after[name]) as a:
            found = differences(json.load(b), json.load(a), args.rtol, args.atol)
        verdicts = sum(kind != "number" for *_, kind in found)
        if not found:
            print(f"{name}: agrees")
            continue
        failed += 1
        print(f"{name}: {len(found)} values differ ({verdicts} verdicts or texts)")
        for path, b, a, kind in found[: args.show]:
            print(f"  {path}: {b} -> {a} ({kind})")
        if len(found) > args.show:
            print(f"  ... {len(found) - args.show} more")
    only_after = sorted(set(after) - set(before))
    if only_after:
        print(f"only in {args.after}: {', '.join(only_after)}")
    print(f"{len(before) - failed} of {len(before)} runs agree within rtol {args.rtol}, "
          f"atol {args.atol}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
