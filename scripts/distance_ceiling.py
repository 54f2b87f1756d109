#!/usr/bin/env python3
"""The in-class ceiling of a single-head softmax operator on Section 8's `global` data, for the
dot-product class ufl reports (src/analysis/softmax_ceiling.cpp) and for the distance class:

    dot:       M(X) = softmax_rows(beta * X X^T + delta * I),           Y = c * M(X) X
    distance:  M(X) = softmax_rows(-beta * ||x_i - x_j||^2 + delta * I),  Y = c * M(X) X

fitted the same way: for given (beta, delta) the best gain c is closed-form (least squares on the
training set); (beta, delta) are searched on ufl's grid (beta*d from 1e-2 to 10 in half decades,
delta from -24 to 24 in steps of 8), then refined by Nelder-Mead from the best grid point. The
fitted head is scored on the test set; eta = optimal_mse / test_mse, optimal_mse read from a run's
metrics.json on the same data (the per-sample optimum's MSE). The dot class reproduces ufl's
eta_ceiling (a check of this script); the best found is a lower bound on each class's true best.

  /usr/bin/python3 scripts/distance_ceiling.py DATASET_DIR RUN_DIR
DATASET_DIR: written by `ufl generate configs/section8/global.json --seed S`; RUN_DIR: a run of
the same config and seed (its metrics.json). Prints one JSON line per class.
"""
import json
import math
import os

import numpy as np
from scipy.optimize import minimize

from script_arguments import arguments


def scores(x, form):
    gram = np.einsum("bid,bjd->bij", x, x)
    if form == "dot":
        return gram
    norms = np.einsum("bii->bi", gram)
    return -(norms[:, :, None] + norms[:, None, :] - 2 * gram)  # -||x_i - x_j||^2


def sums(base, x, target, beta, delta):
    logits = beta * base + delta * np.eye(base.shape[1])
    logits -= logits.max(axis=2, keepdims=True)
    weights = np.exp(logits)
    weights /= weights.sum(axis=2, keepdims=True)
    estimate = weights @ x
    return (estimate * target).sum(), (estimate * estimate).sum(), (target * target).sum()


def fit(train_x, train_t, test_x, test_t, form):
    d = train_x.shape[2]
    base = scores(train_x, form)
    elements = train_t.size

    def mse(point):
        u, delta = point
        cross, output, target = sums(base, train_x, train_t, 10.0 ** u / d, delta)
        return (target - (cross * cross / output if output > 0 else 0.0)) / elements

    grid = [(-2.0 + 0.5 * a, 8.0 * b) for a in range(7) for b in range(-3, 4)]
    start = min(grid, key=mse)
    result = minimize(mse, np.array(start), method="Nelder-Mead",
                      options={"initial_simplex": [start, (start[0] + 0.25, start[1]),
                                                   (start[0], start[1] + 4.0)],
                               "maxiter": 200, "xatol": 1e-6, "fatol": 1e-12})
    u, delta = result.x
    beta = 10.0 ** u / d
    cross, output, _ = sums(base, train_x, train_t, beta, delta)
    gain = cross / output
    test_base = scores(test_x, form)
    cross, output, target = sums(test_base, test_x, test_t, beta, delta)
    test_mse = (target - 2 * gain * cross + gain * gain * output) / test_t.size
    return {"scale": beta, "diagonal_offset": delta, "value_gain": gain,
            "train_mse": float(result.fun), "test_mse": test_mse}


def main():
    data, run = arguments(__doc__, 2)
    load = lambda name: np.load(os.path.join(data, name)).astype(np.float64)
    train_x, train_t = load("train_inputs.npy"), load("train_targets.npy")
    test_x, test_t = load("test_inputs.npy"), load("test_targets.npy")
    with open(os.path.join(run, "metrics.json")) as handle:
        metrics = json.load(handle)
    optimal = metrics["optimal_mse"]
    for form in ("dot", "distance"):
        head = fit(train_x, train_t, test_x, test_t, form)
        head.update({"class": form, "eta_ceiling": optimal / head["test_mse"],
                     "ufl_eta_ceiling": metrics.get("eta_ceiling") if form == "dot" else None})
        print(json.dumps(head), flush=True)


if __name__ == "__main__":
    main()
