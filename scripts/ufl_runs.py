"""The runs of a results folder as the report scripts read them, and the statistics they share:
a rate's Wilson interval, the mean ± sample standard deviation, and Welch's interval for a
difference of two means.

A results folder (scripts/reproduce_*.sh) holds runs/ and runs.csv, the table `ufl collect`
writes of the complete runs (one row each: the run's folder, every scalar metric, and every config
value as config.<key>). load_runs() takes the complete runs from that table and reads each one's
JSON files from its folder (the reports need the nested metrics that the table flattens away);
with diverged=True it adds the runs the trainer stopped as diverged, which the table does not
list but which are results (docs/running.md, "Divergence"; scripts/lib/reproduce.sh keeps them).

Runs with /usr/bin/python3 (numpy only for mean_sd).
"""

import csv
import json
import math
import os

# manifest.json "status", parsed once (parse_status) and compared as these names.
COMPLETE, INTERRUPTED, DIVERGED = "complete", "interrupted", "diverged"
STATUSES = (COMPLETE, INTERRUPTED, DIVERGED)

Z95 = 1.959964  # the standard normal's 97.5% quantile: two-sided 95%


def parse_status(manifest):
    """A run's status from its manifest: one of STATUSES, or None for anything else (a staging
    folder's "running", a damaged manifest). A run without "status" predates the key and was
    complete, as `ufl collect` reads it."""
    word = manifest.get("status", COMPLETE) if isinstance(manifest, dict) else None
    return word if word in STATUSES else None


def wilson(k, n, z=Z95):
    """The Wilson score interval of k successes in n (Wilson 1927), 95% by default: unlike
    k/n ± z·se it stays inside [0, 1] and is not empty at 0/n or n/n. No trials: (0, 1), as
    nothing is known."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k, n):
    """'3/10 [0.11, 0.60]': a count with its 95% Wilson interval."""
    lo, hi = wilson(k, n)
    return f"{k}/{n} [{lo:.2f}, {hi:.2f}]"


def _incomplete_beta(a, b, x):
    """The regularised incomplete beta function I_x(a, b), by its continued fraction (Lentz's
    method, as in Numerical Recipes' betacf), for Student's t below."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast on this side only
        return 1.0 - _incomplete_beta(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) +
                     b * math.log(1 - x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return front * h


def student_t_quantile(p, df):
    """The p-quantile (p > 1/2) of Student's t with df (not necessarily whole) degrees of freedom,
    by bisection on its distribution function."""
    def upper_tail(t):  # P(T > t) for t ≥ 0
        return 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))
    low, high = 0.0, 1.0
    while upper_tail(high) > 1 - p:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if upper_tail(middle) > 1 - p else (low, middle)
    return (low + high) / 2


def welch(a, b, level=0.95):
    """(mean(a) − mean(b), low, high): Welch's interval for the difference of two means, each
    sample with its own variance (Welch 1947; degrees of freedom by Welch–Satterthwaite). None
    with fewer than two values on a side or no spread at all."""
    a = [v for v in a if v is not None]
    b = [v for v in b if v is not None]
    if len(a) < 2 or len(b) < 2:
        return None
    (ma, sa), (mb, sb) = mean_sd(a), mean_sd(b)
    va, vb = sa * sa / len(a), sb * sb / len(b)
    if va + vb == 0:
        return None
    df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    half = student_t_quantile(1 - (1 - level) / 2, df) * math.sqrt(va + vb)
    return ma - mb, ma - mb - half, ma - mb + half


def mean_sd(values):
    """Mean and sample standard deviation (ddof 1) of numbers; sd 0 for one value, (nan, nan)
    for none."""
    import numpy as np
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return math.nan, math.nan
    return float(np.mean(x)), float(np.std(x, ddof=1)) if len(x) > 1 else 0.0


def mean_sd_text(values, digits=3, empty="–", count=False):
    """'0.512 ± 0.034' (with count: '… (n = 5)'); one value alone; `empty` for none. None
    values are left out."""
    values = [v for v in values if v is not None]
    if not values:
        return empty
    mean, sd = mean_sd(values)
    text = f"{mean:.{digits}f} ± {sd:.{digits}f}" if len(values) > 1 else f"{mean:.{digits}f}"
    return f"{text} (n = {len(values)})" if count else text


def case_name(case):
    """A closest special case (metrics.json "closest_special_case", or one of its fits) by name:
    'convolution w=7', 'lowrank k=4', 'fourier', 'attention'."""
    name = case.get("mixer", "?")
    if "kernel_width" in case:
        name += f" w={case['kernel_width']}"
    if "rank" in case:
        name += f" k={case['rank']}"
    return name


def _cell(text):
    """A runs.csv cell as a value: a number, true/false, null, a JSON list or object, else the
    string; an empty cell is None."""
    if text == "":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def read_runs_csv(path):
    """runs.csv as a list of {column: value}, in its order (columns with no value left out)."""
    with open(path, newline="") as f:
        return [{k: _cell(v) for k, v in row.items() if v != ""} for row in csv.DictReader(f)]


def _read_json(path, default=None):
    if not os.path.isfile(path):
        return default
    with open(path) as f:
        return json.load(f)


def _walk(root):
    """Every run folder under root (a folder with manifest.json or config.json), in sorted
    order, hidden folders (staging areas) left out; a run folder holds no further runs."""
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if not s.startswith("."))
        if "manifest.json" in files or "config.json" in files:
            subdirs[:] = []
            yield d


def _run(d, row=None):
    manifest = _read_json(os.path.join(d, "manifest.json"), {})
    return {"dir": d, "name": os.path.basename(os.path.normpath(d)), "manifest": manifest,
            "status": parse_status(manifest), "row": row or {},
            "config": _read_json(os.path.join(d, "config.json"), {}),
            "metrics": _read_json(os.path.join(d, "metrics.json"))}


def _walk_order(path):
    return os.path.normpath(path).split(os.sep)


def load_runs(runs_dir, csv_path=None, diverged=False):
    """The finished runs under runs_dir, in the order of a sorted walk of the folders. Each is
    {"dir", "name", "manifest", "status", "config", "metrics", "row"} ("row": its line of
    runs.csv). The complete runs are those of runs.csv (csv_path, by default runs.csv beside
    runs_dir, where scripts/reproduce_*.sh write it); without that file, the folders `ufl
    collect` would list (status complete, metrics.json and config.json). With diverged=True, also
    the diverged runs; one without metrics.json has metrics {"diverged": True}."""
    if csv_path is None:
        csv_path = os.path.join(os.path.dirname(os.path.normpath(runs_dir)), "runs.csv")
    runs = []
    if os.path.isfile(csv_path):
        base = os.path.dirname(os.path.abspath(csv_path))
        inside = os.path.abspath(runs_dir) + os.sep
        for row in read_runs_csv(csv_path):
            d = row["run"] if os.path.isabs(row["run"]) else os.path.join(base, row["run"])
            if (os.path.abspath(d) + os.sep).startswith(inside):
                runs.append(_run(os.path.join(runs_dir, os.path.relpath(d, runs_dir)), row))
    else:
        for d in _walk(runs_dir):
            run = _run(d)
            if run["status"] == COMPLETE and run["metrics"] is not None and run["config"]:
                runs.append(run)
    if diverged:
        for d in _walk(runs_dir):
            run = _run(d)
            if run["status"] == DIVERGED and run["config"]:
                if run["metrics"] is None:
                    run["metrics"] = {"diverged": True}
                runs.append(run)
    return sorted(runs, key=lambda r: _walk_order(r["dir"]))
