#!/usr/bin/python3
"""Compares run folders file by file, before and after a change (house rule: existing results stay
bit-identical unless a change is the point).

Usage:  /usr/bin/python3 scripts/compare_runs.py BEFORE_DIR AFTER_DIR

Both folders are searched for run folders (a folder with manifest.json); runs are matched by their
path relative to the folder. For every run, every file of BEFORE must exist in AFTER with the same
bytes, except:
  manifest.json   wall time, steps/s, host, command, version and commit may differ;
  metrics.json    every value BEFORE holds must be in AFTER, equal (AFTER may add keys);
  *.svg           equal once Matplotlib's volatile parts are set aside: its date, the random ids
                  it gives elements, and the encoding of embedded PNG images (compared by pixel);
  config.json     compared key by key, each differing key named (config.json/layer/gate_init);
  logs            not compared.
Files only in AFTER are listed as added. Each run's differences are listed settings first
(config.json, then params/), then the other files, then metrics.json and manifest.json: the first
8, then how many more.

Exit 0 when every run matches; 1 when a run differs, a run is in one folder only, or there was
nothing to compare (no run folders on either side); 2 when a folder is not there.
"""
import base64
import io
import json
import os
import re
import sys

from script_arguments import arguments, refuse

VOLATILE_MANIFEST = {"command", "finished_at", "git_commit", "host", "invocations", "pid",
                     "peak_memory_bytes", "steps_per_second", "train_seconds",
                     "trajectory_seconds", "wall_seconds", "ufl_version", "analyses"}


def runs(root):
    found = {}
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if not s.startswith("."))
        if "manifest.json" in files:
            found[os.path.relpath(d, root)] = d
            subdirs[:] = []
    return found


def differing_keys(old, new, path=""):
    """Every key whose value differs between two JSON documents, either way."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new)):
            if key not in new:
                out.append(f"{path}/{key} (removed)")
            elif key not in old:
                out.append(f"{path}/{key} (added)")
            else:
                out += differing_keys(old[key], new[key], f"{path}/{key}")
        return out
    return [] if old == new else [path or "/"]


def order(problem):
    """Settings first (config.json, then the parameters), then the other files, then the
    measurements and the manifest: a difference in what was trained explains the rest."""
    for rank, prefix in enumerate(("config.json", "params/")):
        if problem.startswith(prefix):
            return rank
    return 3 if problem.startswith("metrics.json") else 4 if problem.startswith("manifest") else 2


def contained(old, new, path=""):
    """Differences where `new` does not hold `old`'s value (new may add keys)."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return [path or "/"]
        out = []
        for key, value in old.items():
            if key not in new:
                out.append(f"{path}/{key} (removed)")
            else:
                out += contained(value, new[key], f"{path}/{key}")
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = []
        for index, (a, b) in enumerate(zip(old, new)):
            out += contained(a, b, f"{path}[{index}]")
        return out
    return [] if old == new else [path or "/"]


def same_svg(a, b):
    """Matplotlib SVGs equal but for their date, random element ids and PNG encodings."""
    image = re.compile(rb'data:image/png;base64,\s*([A-Za-z0-9+/=\s]+)"')
    def text(svg):
        svg = re.sub(rb"<dc:date>.*?</dc:date>", b"", svg, flags=re.S)
        svg = image.sub(b'data:image/png;base64,IMAGE"', svg)
        return re.sub(rb"\b[a-z]+[0-9a-f]{10}\b", b"ID", svg)
    if text(a) != text(b):
        return False
    import matplotlib.image as mpimg  # only when there are images to compare
    import numpy as np
    for x, y in zip(image.findall(a), image.findall(b)):
        pixels = [mpimg.imread(io.BytesIO(base64.b64decode(re.sub(rb"\s", b"", z))))
                  for z in (x, y)]
        if pixels[0].shape != pixels[1].shape or not np.array_equal(*pixels):
            return False
    return True


def compare(before, after):
    problems, added = [], []
    for d, _, files in os.walk(before):
        for name in files:
            rel = os.path.relpath(os.path.join(d, name), before)
            other = os.path.join(after, rel)
            if not os.path.exists(other):
                problems.append(f"{rel}: missing after")
                continue
            if name == "config.json" and os.path.dirname(rel) == "":
                diffs = differing_keys(json.load(open(os.path.join(d, name))), json.load(open(other)))
                if not diffs and open(os.path.join(d, name), "rb").read() != open(other, "rb").read():
                    diffs = [": bytes differ (the same values)"]
                problems += [f"config.json{p}" for p in diffs]
            elif name == "metrics.json" and os.path.dirname(rel) == "":
                diffs = contained(json.load(open(os.path.join(d, name))), json.load(open(other)))
                problems += [f"metrics.json{p}" for p in diffs]
            elif name == "manifest.json" and os.path.dirname(rel) == "":
                old, new = json.load(open(os.path.join(d, name))), json.load(open(other))
                for key in set(old) | set(new):
                    if key not in VOLATILE_MANIFEST and old.get(key) != new.get(key):
                        problems.append(f"manifest.json/{key}")
            else:
                old_bytes, new_bytes = open(os.path.join(d, name), "rb").read(), open(other, "rb").read()
                if old_bytes != new_bytes and not (name.endswith(".svg") and
                                                   same_svg(old_bytes, new_bytes)):
                    problems.append(f"{rel}: bytes differ")
    for d, _, files in os.walk(after):
        for name in files:
            rel = os.path.relpath(os.path.join(d, name), after)
            if not os.path.exists(os.path.join(before, rel)):
                added.append(rel)
    return sorted(problems, key=order), added


def listed(items, shown=8):
    """The first `shown` items, then how many more."""
    more = f"; {len(items) - shown} more" if len(items) > shown else ""
    return "; ".join(items[:shown]) + more


def main(argv):
    before_dir, after_dir = arguments(__doc__, 2, argv=argv)
    for folder in (before_dir, after_dir):
        if not os.path.isdir(folder):
            refuse(__doc__, f"{folder} is not a folder")
    before, after = runs(before_dir), runs(after_dir)
    bad = 0
    for rel in sorted(set(before) | set(after)):
        if rel not in after:
            print(f"{rel}: MISSING in {after_dir} (only before)")
            continue
        if rel not in before:
            print(f"{rel}: MISSING in {before_dir} (only after)")
            continue
        problems, added = compare(before[rel], after[rel])
        bad += bool(problems)
        status = "identical" if not problems else "DIFFERENT: " + listed(problems)
        extra = f" (added: {listed(sorted(added), 6)})" if added else ""
        print(f"{rel}: {status}{extra}")
    common = len(set(before) & set(after))
    only_before, only_after = len(set(before) - set(after)), len(set(after) - set(before))
    print(f"{common} runs compared, {common - bad} identical (new metrics keys allowed), "
          f"{bad} different; {only_before} only before, {only_after} only after")
    if common == 0:
        print(f"nothing compared: no run folder (one holding manifest.json) is in both "
              f"{before_dir} and {after_dir}", file=sys.stderr)
    sys.exit(1 if bad or only_before or only_after or common == 0 else 0)


if __name__ == "__main__":
    main(sys.argv)
