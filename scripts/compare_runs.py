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
  logs            not compared.
Files only in AFTER are listed as added. Exit 0 when every run matches, 1 otherwise.
"""
import base64
import io
import json
import os
import re
import sys

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
            if name == "metrics.json" and os.path.dirname(rel) == "":
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
    return problems, added


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    before, after = runs(argv[1]), runs(argv[2])
    bad = 0
    for rel in sorted(before):
        if rel not in after:
            continue
        problems, added = compare(before[rel], after[rel])
        bad += bool(problems)
        status = "identical" if not problems else "DIFFERENT: " + "; ".join(problems[:8])
        extra = f" (added: {', '.join(sorted(added)[:6])})" if added else ""
        print(f"{rel}: {status}{extra}")
    common = len(set(before) & set(after))
    print(f"{common} runs compared, {common - bad} identical (new metrics keys allowed), "
          f"{bad} different; {len(set(before) - set(after))} only before, "
          f"{len(set(after) - set(before))} only after")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv)
