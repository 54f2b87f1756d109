#!/usr/bin/python3
"""An in-context copying corpus (docs/transformer.md §7): LINES lines, each a random segment of
6-20 lowercase letters, `|`, and the same letters again. The second half of each line can only be
predicted by copying from earlier in the context (about 1.5 nats per character with perfect
copying, about 3.2 without).

    /usr/bin/python3 bench/copy_corpus.py OUT [--lines 40000] [--seed 0]
"""
import argparse
import random
import string

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("out")
parser.add_argument("--lines", type=int, default=40000)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
rng = random.Random(args.seed)
lines = []
for _ in range(args.lines):
    segment = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(6, 20)))
    lines.append(f"{segment}|{segment}\n")
with open(args.out, "w") as handle:
    handle.write("".join(lines))
