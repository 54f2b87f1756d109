#!/usr/bin/python3
"""The PyTorch peer of ufl_step_bench: the same layer, loss, optimizer and minibatch step.

The layer of spec section 2, float32, on the CPU:
    U = X~ A,  V = X~ B            X~ = [X, one-hot positions, 1],  A, B: (d+n+1) x r
    Sigma = softplus(s),  S = U diag(Sigma) V^T,  gamma = sigmoid(g)
    M = (1 - gamma) S + gamma softmax_rows(S),  Y = M X W_v
    loss = mean((Y - C)^2) + lambda * mean_batch(|U^T U - I|_F^2 + |V^T V - I|_F^2) / r^2
torch.optim.Adam(lr=1e-2, betas=(0.9, 0.999), eps=1e-8) with the cosine schedule (LambdaLR).
Each step copies a minibatch out of a pre-generated pool (X_pool[idx]), runs forward, backward,
optimizer.step() and scheduler.step().

X~ A is done two ways (--variant):
  lookup  U = X @ A[:d] + A[d:d+n] + A[d+n]            (what ufl does)
  concat  U = cat([X, I_n, 1], -1) @ A                  (the literal formula)
Prints one JSON line per variant, like ufl_step_bench, with "impl":"torch".

Other modes:
  --gemm-peak      torch.mm GFLOP/s at 512^3 with --threads threads (which BLAS torch uses matters:
                   Debian's torch calls whatever libblas.so.3 the alternatives system selects).
  --check          compares the forward loss of both variants with a float64 NumPy
                   re-implementation on a random instance, and their gradients with each other.
  --compare DIR    replays a trace written by `ufl_step_bench --dump DIR` (same initial
                   parameters, data and minibatches) and compares the loss at every step and the
                   final parameters with ufl's.

The transformer block (docs/transformer.md), with its own options after the word `transformer`:
  torch_peer.py transformer --bench [--mixer attention|universal|distance|linear] [--n 64 --width 128
                --depth 4 --heads 4 --batch 12] [--threads T]
                   times one training step (forward, backward, clipping, AdamW) on random tokens
                   of the corpus's vocabulary, like ufl_transformer_bench; one JSON line.
  torch_peer.py transformer --train [--mixer …] [--seed S] [--steps 2000] [--out FILE]
                   trains on the corpus (default Debian's fortunes) as `ufl train
                   configs/transformer/text.json` does and prints the validation loss (JSON).
  torch_peer.py transformer --train --task mqar [--vocab 64 --pairs 4 --filler blank …]
                   trains on MQAR drawn here as ufl's `mqar` kind draws it (its own generator)
                   and prints the query accuracy at each evaluation: the independent check of
                   the study's MQAR control (docs/transformer_controls.md §2).
  Written from docs/transformer.md §1-§4, not from ufl's code, batched over heads as nanoGPT's
  CausalSelfAttention is (one product for every head's projections, heads as a tensor
  dimension), so that it is PyTorch's fast eager form of the same block.

Run with /usr/bin/python3 (Debian's python3-torch); PyTorch is never a dependency of ufl.
"""
import argparse
import json
import math
import os
import sys
import time


def add_thread_options(p):
    """--threads and --blas-threads, the same for every subcommand."""
    p.add_argument("--threads", type=int, default=1,
                   help="torch's intra-op threads; 0 = torch's default (all cores)")
    p.add_argument("--blas-threads", default="same",
                   help="the BLAS's threads (OpenBLAS/MKL/BLIS): a count, 'same' (= --threads, "
                        "the default) or 'default' (left as a user gets it: OpenBLAS takes "
                        "every core)")


def parse_args(argv):
    if argv and argv[0] == "transformer":
        return parse_transformer_args(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=32)
    p.add_argument("--d", type=int, default=16)
    p.add_argument("--r", type=int, default=0, help="rank (default n)")
    p.add_argument("--batch", type=int, default=64)
    add_thread_options(p)
    p.add_argument("--steps", type=int, default=0, help="steps per timed repeat; 0 = auto")
    p.add_argument("--warmup", type=int, default=-1, help="warm-up steps; -1 = auto (0.25 s)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seconds", type=float, default=1.5, help="time budget of the timed repeats")
    p.add_argument("--pool", type=int, default=0, help="samples in the pool (default max(4B, 256))")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--variant", choices=["lookup", "concat", "both"], default="both")
    p.add_argument("--schedule-steps", type=int, default=6000)
    p.add_argument("--gemm-peak", action="store_true")
    p.add_argument("--gemm-size", type=int, default=512)
    p.add_argument("--check", action="store_true")
    p.add_argument("--compare", metavar="DIR")
    a = p.parse_args(argv)
    a.command = "layer"
    if a.r <= 0:
        a.r = a.n
    if a.pool <= 0:
        a.pool = max(4 * a.batch, 256)
    return a


def parse_transformer_args(argv):
    p = argparse.ArgumentParser(prog="torch_peer.py transformer",
                                description="the transformer block of docs/transformer.md")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--bench", action="store_true", help="time training steps")
    mode.add_argument("--train", action="store_true", help="train on the corpus")
    mode.add_argument("--replay", metavar="RUN",
                      help="train from a ufl run's initial parameters on its minibatches in its "
                           "order (its config.json: seed, sizes, schedule) and compare the losses "
                           "step by step with RUN/loss.csv")
    p.add_argument("--compare-steps", type=int, default=50,
                   help="--replay: the first steps whose losses must agree to --tolerance")
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="--replay: largest |torch − ufl| loss difference allowed over the "
                        "first --compare-steps steps")
    p.add_argument("--corpus", default="/usr/share/games/fortunes")
    p.add_argument("--task", choices=["text", "mqar", "induction"], default="text",
                   help="--train: the corpus (text), multi-query associative recall generated "
                        "here as ufl's `mqar` kind draws it (docs/transformer.md §2), scored on "
                        "the queries only, or Section 7's induction task under denoise "
                        "(docs/section7.md §2; attention only, no causal mask, MSE)")
    p.add_argument("--d", type=int, default=16, help="--task induction: dataset.d")
    p.add_argument("--noise", type=float, default=0.5, help="--task induction: dataset.noise")
    p.add_argument("--vocab", type=int, default=256, help="--task mqar: dataset.vocab")
    p.add_argument("--pairs", type=int, default=8, help="--task mqar: dataset.pairs")
    p.add_argument("--filler", choices=["random", "blank"], default="random",
                   help="--task mqar: dataset.filler")
    p.add_argument("--train-size", type=int, default=8192,
                   help="--task mqar, induction: training sequences")
    p.add_argument("--test-size", type=int, default=512,
                   help="--task mqar, induction: test sequences")
    p.add_argument("--mixer", choices=["attention", "universal", "distance", "linear"],
                   default="universal")
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--mlp-ratio", type=int, default=4,
                   help="the MLP's width as a multiple of --width; 0: no MLP (model.mlp_ratio)")
    p.add_argument("--batch", type=int, default=12)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lr-final", type=float, default=1e-4)
    p.add_argument("--warmup-steps", type=int, default=100)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--gate-init", type=float, default=0.99,
                   help="universal heads: γ at initialisation (ufl's layer.gate_init)")
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--val-fraction", type=float, default=0.1)
    p.add_argument("--val-windows", type=int, default=200)
    p.add_argument("--eval-every", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    add_thread_options(p)
    p.add_argument("--out", help="--train: also write the JSON result here")
    p.add_argument("--steps", type=int, default=0,
                   help="--train: training steps (default 2000); --bench: steps per timed "
                        "repeat (0 = auto); --replay: steps to train (default the run's)")
    p.add_argument("--warmup", type=int, default=-1, help="--bench: warm-up steps (-1 = auto)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seconds", type=float, default=3.0, help="--bench: time of the repeats")
    a = p.parse_args(argv)
    a.command = "transformer"
    if a.width % a.heads:
        p.error("--heads must divide --width")
    return a


ARGS = parse_args(sys.argv[1:])
# Thread counts of the BLAS torch calls must be fixed before torch loads it (OpenBLAS reads its
# environment once); torch.set_num_threads below covers torch's own OpenMP pool.
# --blas-threads default leaves them (and OMP_NUM_THREADS, which OpenBLAS falls back to) as the
# user's environment has them; a count sets the BLAS's variables only.
if ARGS.blas_threads == "same" and ARGS.threads > 0:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ[var] = str(ARGS.threads)
elif ARGS.blas_threads not in ("same", "default"):
    if not ARGS.blas_threads.isdigit() or int(ARGS.blas_threads) < 1:
        sys.exit(f"torch_peer.py: --blas-threads {ARGS.blas_threads}: give a count of 1 or more, "
                 "'same' or 'default'")
    for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ[var] = ARGS.blas_threads

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as error:
    sys.exit(
        f"torch_peer.py: cannot import {error.name} with {sys.executable}.\n"
        "Install Debian's PyTorch and run this script with /usr/bin/python3:\n"
        "    apt-get install python3-torch python3-numpy")

if ARGS.threads > 0:
    torch.set_num_threads(ARGS.threads)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:
    pass  # already set (only possible before any parallel work)

LR, LR_FINAL, ORTHO_WEIGHT, NOISE = 1e-2, 1e-4, 0.01, 0.5


def blas_library():
    """The BLAS shared library torch has loaded (Debian: chosen by update-alternatives)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line}
    except OSError:
        return "unknown"
    return ",".join(sorted(os.path.realpath(p) for p in paths)) or "none"


def cosine_lr(step, total):
    return LR_FINAL + (LR - LR_FINAL) * (1 + math.cos(math.pi * step / total)) / 2


# ---------------------------------------------------------------------------- data and layer

def local_data(pool, n, d, gen, kernel_width=5):
    """The `local` dataset of spec section 1: Gaussian-bump-filtered white noise, X = C + 0.5 E."""
    half = kernel_width // 2
    t = torch.arange(-half, half + 1, dtype=torch.float64)
    taps = torch.exp(-t * t / (2 * (kernel_width / 4) ** 2))
    taps = taps / taps.norm()
    white = torch.randn(pool, n + 2 * half, d, generator=gen, dtype=torch.float64)
    clean = sum(taps[k] * white[:, k:k + n, :] for k in range(2 * half + 1))
    noisy = clean + NOISE * torch.randn(pool, n, d, generator=gen, dtype=torch.float64)
    return noisy.float().contiguous(), clean.float().contiguous()


def init_params(n, d, r, gen):
    """Spec section 2: position rows N(0, 1/n), content rows N(0, 1/(n d)), bias 0, s = g = 0,
    W_v = I."""
    h = d + n + 1
    params = {}
    for name in ("A", "B"):
        m = torch.zeros(h, r)
        m[:d] = torch.randn(d, r, generator=gen) / math.sqrt(n * d)
        m[d:d + n] = torch.randn(n, r, generator=gen) / math.sqrt(n)
        params[name] = m
    params["s"] = torch.zeros(r)
    params["g"] = torch.zeros(())
    params["W_v"] = torch.eye(d)
    return {k: v.requires_grad_() for k, v in params.items()}


class Layer:
    def __init__(self, n, d, r, variant):
        self.n, self.d, self.r, self.variant = n, d, r, variant
        self.eye_n = torch.eye(n)
        self.eye_r = torch.eye(r)

    def project(self, x, a):
        n, d = self.n, self.d
        if self.variant == "lookup":
            return x @ a[:d] + a[d:d + n] + a[d + n]
        batch = x.shape[0]
        x_tilde = torch.cat([x, self.eye_n.expand(batch, n, n), x.new_ones(batch, n, 1)], dim=-1)
        return x_tilde @ a

    def loss(self, p, x, c):
        u = self.project(x, p["A"])
        v = self.project(x, p["B"])
        sigma = F.softplus(p["s"])
        gamma = torch.sigmoid(p["g"])
        s = (u * sigma) @ v.transpose(-1, -2)
        m = (1 - gamma) * s + gamma * torch.softmax(s, dim=-1)
        y = (m @ x) @ p["W_v"]
        mse = ((y - c) ** 2).mean()
        ortho = ((u.transpose(-1, -2) @ u - self.eye_r) ** 2).mean() + \
                ((v.transpose(-1, -2) @ v - self.eye_r) ** 2).mean()
        return mse + ORTHO_WEIGHT * ortho

    def flops_per_step(self, batch):
        """Matrix-product FLOPs per step, counted as in step_bench.cpp (elementwise work not
        counted). concat adds the products with the one-hot and ones columns of X~."""
        n, d, r = self.n, self.d, self.r
        total = 8 * n * d * r + 6 * n * n * r + 4 * n * n * d + 6 * n * d * d + 12 * n * r * r
        if self.variant == "concat":
            total += 8 * n * (n + 1) * r  # U, V forward and dA, dB backward over n+1 extra columns
        return float(batch * total)


class Trainer:
    """One training step: minibatch copy, forward, backward, Adam step, schedule step."""

    def __init__(self, layer, params, x_pool, c_pool, batch, schedule_steps, seed):
        self.layer, self.params = layer, params
        self.x_pool, self.c_pool, self.batch = x_pool, c_pool, batch
        self.optimizer = torch.optim.Adam(params.values(), lr=LR, betas=(0.9, 0.999), eps=1e-8)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda t: cosine_lr(t % schedule_steps, schedule_steps) / LR)
        self.gen = torch.Generator().manual_seed(seed + 1000)
        self.order, self.position = [], 0
        self.last_loss = float("nan")

    def next_indices(self):
        idx = []
        while len(idx) < self.batch:
            if self.position == len(self.order):
                self.order = torch.randperm(self.x_pool.shape[0], generator=self.gen).tolist()
                self.position = 0
            take = min(self.batch - len(idx), len(self.order) - self.position)
            idx += self.order[self.position:self.position + take]
            self.position += take
        return torch.tensor(idx)

    def step(self, idx=None):
        if idx is None:
            idx = self.next_indices()
        x, c = self.x_pool[idx], self.c_pool[idx]
        self.optimizer.zero_grad()
        loss = self.layer.loss(self.params, x, c)
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()
        self.last_loss = loss.item()
        return self.last_loss


# ---------------------------------------------------------------------------------- timing

def time_steps(step, args):
    """Warm-up, then `repeats` timed runs of `steps` steps; returns (median, min, max ms/step,
    steps, repeats, warm-up steps). With --steps 0 the steps per repeat are chosen so that all
    repeats take about --seconds (fewer repeats when one step alone is longer)."""
    start = time.perf_counter()
    warm = 0
    if args.warmup >= 0:
        for _ in range(args.warmup):
            step()
        warm = args.warmup
    else:
        while True:
            step()
            warm += 1
            if time.perf_counter() - start >= 0.25:
                break
    if warm > 0:
        estimate = (time.perf_counter() - start) / warm
    else:
        t0 = time.perf_counter()
        step()
        estimate = time.perf_counter() - t0
    repeats, steps = args.repeats, args.steps
    if steps <= 0:
        repeats = max(1, min(args.repeats, int(args.seconds / max(estimate, 1e-9))))
        steps = max(1, int(args.seconds / repeats / max(estimate, 1e-9) + 0.5))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        times.append((time.perf_counter() - t0) * 1e3 / steps)
    times.sort()
    k = len(times)
    median = times[k // 2] if k % 2 else 0.5 * (times[k // 2 - 1] + times[k // 2])
    return median, times[0], times[-1], steps, repeats, warm


def bench(args):
    gen = torch.Generator().manual_seed(args.seed)
    x_pool, c_pool = local_data(args.pool, args.n, args.d, gen)
    variants = ["lookup", "concat"] if args.variant == "both" else [args.variant]
    blas = blas_library()
    for variant in variants:
        layer = Layer(args.n, args.d, args.r, variant)
        params = init_params(args.n, args.d, args.r, torch.Generator().manual_seed(args.seed))
        trainer = Trainer(layer, params, x_pool, c_pool, args.batch, args.schedule_steps, args.seed)
        median, fastest, slowest, steps, repeats, warm = time_steps(trainer.step, args)
        flops = layer.flops_per_step(args.batch)
        print(json.dumps({
            "impl": "torch", "variant": variant, "n": args.n, "d": args.d, "r": args.r,
            "batch": args.batch, "threads": args.threads, "ms_per_step": round(median, 6),
            "ms_min": round(fastest, 6), "ms_max": round(slowest, 6),
            "gflops": round(flops / (median * 1e-3) / 1e9, 6), "flops_per_step": flops,
            "steps": steps, "repeats": repeats, "warmup": warm,
            "loss": round(trainer.last_loss, 6), "torch": torch.__version__, "blas": blas,
        }), flush=True)


def gemm_peak(args):
    size = args.gemm_size
    a, b = torch.randn(size, size), torch.randn(size, size)
    c = a @ b
    t0 = time.perf_counter()
    c = a @ b
    reps = max(1, int(0.5 / max(time.perf_counter() - t0, 1e-9)))
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(reps):
            torch.mm(a, b, out=c)
        best = max(best, reps * 2.0 * size ** 3 / (time.perf_counter() - t0) / 1e9)
    print(json.dumps({"impl": "torch", "threads": args.threads, "size": size,
                      "gflops": round(best, 4), "torch": torch.__version__,
                      "blas": blas_library()}))


# ----------------------------------------------------------------------------- validation

def numpy_loss(p, x, c):
    """Float64 NumPy re-implementation of the loss straight from the formulas (explicit X~)."""
    batch, n, d = x.shape
    r = p["A"].shape[1]
    x_tilde = np.concatenate([x, np.broadcast_to(np.eye(n), (batch, n, n)), np.ones((batch, n, 1))],
                             axis=-1)
    u, v = x_tilde @ p["A"], x_tilde @ p["B"]
    sigma = np.log1p(np.exp(p["s"]))
    gamma = 1 / (1 + np.exp(-p["g"]))
    s = u @ np.diag(sigma) @ np.swapaxes(v, -1, -2)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    m = (1 - gamma) * s + gamma * e / e.sum(axis=-1, keepdims=True)
    y = m @ x @ p["W_v"]
    mse = np.mean((y - c) ** 2)
    ortho = sum(np.mean([np.sum((f[b].T @ f[b] - np.eye(r)) ** 2) for b in range(batch)]) / r ** 2
                for f in (u, v))
    return mse + ORTHO_WEIGHT * ortho


def check():
    gen = torch.Generator().manual_seed(7)
    ok = True
    for n, d, r, batch in [(7, 3, 5, 4), (12, 4, 12, 3), (32, 16, 32, 8)]:
        x, c = local_data(batch, n, d, gen)
        base = init_params(n, d, r, gen)
        with torch.no_grad():  # move away from the symmetric start: bias rows, s, g, W_v too
            for t in base.values():
                t.add_(0.3 * torch.randn(t.shape, generator=gen))
        reference = numpy_loss({k: v.detach().double().numpy() for k, v in base.items()},
                               x.double().numpy(), c.double().numpy())
        grads = {}
        for variant in ("lookup", "concat"):
            params = {k: v.detach().clone().requires_grad_() for k, v in base.items()}
            loss = Layer(n, d, r, variant).loss(params, x, c)
            loss.backward()
            grads[variant] = {k: v.grad for k, v in params.items()}
            rel = abs(loss.item() - reference) / abs(reference)
            ok &= rel < 1e-5
            print(f"n={n:3d} d={d:2d} r={r:3d} B={batch}: {variant:6s} loss {loss.item():.7f}  "
                  f"numpy(float64) {reference:.7f}  rel.diff {rel:.1e}")
        worst = max(((grads["lookup"][k] - grads["concat"][k]).abs().max() /
                     grads["concat"][k].abs().max().clamp_min(1e-30)).item() for k in base)
        ok &= worst < 1e-4
        print(f"    gradients lookup vs concat: max rel.diff {worst:.1e}")
    print("check passed" if ok else "CHECK FAILED")
    return 0 if ok else 1


def compare(directory):
    meta = json.load(open(os.path.join(directory, "meta.json")))
    n, d, r, batch, pool, steps = (meta[k] for k in ("n", "d", "r", "batch", "pool", "steps"))
    load = lambda name, dtype: np.fromfile(os.path.join(directory, name), dtype=dtype)
    x_pool = torch.from_numpy(load("inputs.f32", "<f4").reshape(pool, n, d))
    c_pool = torch.from_numpy(load("targets.f32", "<f4").reshape(pool, n, d))
    indices = torch.from_numpy(load("indices.i32", "<i4").astype(np.int64).reshape(steps, batch))
    ufl_losses = load("losses.f32", "<f4")
    shapes = [("A", (d + n + 1, r)), ("B", (d + n + 1, r)), ("s", (r,)), ("g", ()), ("W_v", (d, d))]

    def unflatten(flat):
        out, offset = {}, 0
        for name, shape in shapes:
            size = int(np.prod(shape)) if shape else 1
            out[name] = torch.from_numpy(flat[offset:offset + size].copy()).reshape(shape)
            offset += size
        assert offset == flat.size, "parameter layout does not match (A, B, s, g, W_v)"
        return out

    start = unflatten(load("params0.f32", "<f4"))
    final = unflatten(load("params_final.f32", "<f4"))
    ok = True
    for variant in ("lookup", "concat"):
        params = {k: v.clone().requires_grad_() for k, v in start.items()}
        trainer = Trainer(Layer(n, d, r, variant), params, x_pool, c_pool, batch,
                          meta["schedule_steps"], 0)
        losses = [trainer.step(indices[k]) for k in range(steps)]
        loss_diff = max(abs(a - b) / abs(b) for a, b in zip(losses, ufl_losses))
        param_diff = max(((params[k].detach() - final[k]).abs().max() /
                          final[k].abs().max().clamp_min(1e-30)).item() for k in final)
        print(f"{variant:6s}: loss step 1 torch {losses[0]:.6f} ufl {ufl_losses[0]:.6f}; "
              f"step {steps} torch {losses[-1]:.6f} ufl {ufl_losses[-1]:.6f}; "
              f"max rel.diff losses {loss_diff:.1e}, final parameters {param_diff:.1e}")
        ok &= loss_diff < 1e-4 and param_diff < 1e-3
    print("ufl and torch agree" if ok else "ufl and torch DISAGREE")
    return 0 if ok else 1


# --------------------------------------------------------------------- the transformer block

def read_corpus(path):
    """The corpus's text and the files read, as docs/transformer.md §2 says ufl reads it: a file,
    or a folder's regular files (not links) that are UTF-8 text without NUL, in name order."""
    def text_of(file):
        with open(file, "rb") as handle:
            data = handle.read()
        if not data or b"\x00" in data:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    if os.path.isfile(path):
        return text_of(path), [path]
    parts, files = [], []
    for name in sorted(os.listdir(path)):
        file = os.path.join(path, name)
        if os.path.islink(file) or not os.path.isfile(file):
            continue
        text = text_of(file)
        if text is not None:
            parts.append(text)
            files.append(file)
    return "".join(parts), files


def transformer_lr(step, a):
    """The schedule of docs/transformer.md §3, step = 1..T: linear warm-up, then cosine."""
    if step <= a.warmup_steps:
        return a.lr * step / a.warmup_steps
    progress = (step - a.warmup_steps - 1) / max(1, a.steps - a.warmup_steps - 1)
    return a.lr_final + (a.lr - a.lr_final) * (1 + math.cos(math.pi * progress)) / 2


class Mixing(torch.nn.Module):
    """Every head of one block (docs/transformer.md §3), heads as a tensor dimension. The values
    of all heads are one product y W_v (W_v: D x D, head k's slice its columns); attention,
    universal and distance heads add their query and key columns to that product. A distance head
    has a universal head's parameters and scores S_ij = -1/2 sum_k sigma_k (u_ik - v_jk)^2 / sqrt(r)
    (src/model/mixers/distance.hpp)."""

    def __init__(self, mixer, n, width, heads, depth, std, gate_init=0.99, causal=True):
        super().__init__()
        self.mixer, self.h, self.r, self.dv = mixer, heads, width // heads, width // heads
        scores = mixer != "linear"
        columns = width + (2 * heads * self.r if scores else 0)
        self.W_in = torch.nn.Parameter(torch.randn(width, columns) * std)  # [q | k | v]
        self.gated = mixer in ("universal", "distance")
        if self.gated:  # position rows N(0, std^2), bias rows 0, softplus(s) = 1
            self.A_pos = torch.nn.Parameter(torch.randn(heads, n, self.r) * std)
            self.B_pos = torch.nn.Parameter(torch.randn(heads, n, self.r) * std)
            self.a_bias = torch.nn.Parameter(torch.zeros(heads, 1, self.r))
            self.b_bias = torch.nn.Parameter(torch.zeros(heads, 1, self.r))
            self.s = torch.nn.Parameter(torch.full((heads, 1, self.r), math.log(math.e - 1)))
            self.g = torch.nn.Parameter(  # sigmoid(g) = gate_init (layer.gate_init)
                torch.full((heads, 1, 1), math.log(gate_init / (1 - gate_init))))
        if mixer == "linear":  # one n x n matrix per head, starting at I
            self.M = torch.nn.Parameter(torch.eye(n).repeat(heads, 1, 1))
        self.W_o = torch.nn.Parameter(torch.randn(width, width) * std / math.sqrt(2 * depth))
        mask = torch.ones(n, n, dtype=torch.bool)  # denoise (--task induction): no mask
        self.register_buffer("mask", mask.tril() if causal else mask)
        self.register_buffer("positions", torch.arange(1, n + 1, dtype=torch.float32).view(n, 1))

    def forward(self, y):
        batch, n, width = y.shape
        projected = y @ self.W_in
        values = projected[..., -width:].view(batch, n, self.h, self.dv).transpose(1, 2)
        if self.mixer == "linear":
            M = self.M.masked_fill(~self.mask, 0.0)
        else:
            qk = projected[..., :-width].view(batch, n, 2, self.h, self.r)
            q, k = qk[:, :, 0].transpose(1, 2), qk[:, :, 1].transpose(1, 2)
            if self.mixer == "universal":
                q = (q + self.A_pos + self.a_bias) * F.softplus(self.s)
                k = k + self.B_pos + self.b_bias
            if self.mixer == "distance":  # UΣVᵀ - ½‖U_i‖²_Σ - ½‖V_j‖²_Σ
                sigma = F.softplus(self.s)
                u, v = q + self.A_pos + self.a_bias, k + self.B_pos + self.b_bias
                S = ((u * sigma) @ v.transpose(-1, -2) - 0.5 * (u * u * sigma).sum(-1, keepdim=True)
                     - 0.5 * (v * v * sigma).sum(-1).unsqueeze(-2)) / math.sqrt(self.r)
            else:
                S = (q @ k.transpose(-1, -2)) / math.sqrt(self.r)
            M = torch.softmax(S.masked_fill(~self.mask, float("-inf")), dim=-1)
            if self.gated:  # the linear branch: row i's mean over j <= i
                gamma = torch.sigmoid(self.g)
                M = (1 - gamma) * S.masked_fill(~self.mask, 0.0) / self.positions + gamma * M
        mixed = (M @ values).transpose(1, 2).reshape(batch, n, width)
        return mixed @ self.W_o


class TransformerBlock(torch.nn.Module):
    """x + Mixing(LN(x)), then + W_2 GELU(W_1 LN(.) + b_1) + b_2 (docs/transformer.md §1);
    without the second branch at --mlp-ratio 0."""

    def __init__(self, a, std, causal=True):
        super().__init__()
        hidden = a.mlp_ratio * a.width
        self.norm1 = torch.nn.LayerNorm(a.width)
        self.mixing = Mixing(a.mixer, a.n, a.width, a.heads, a.depth, std, a.gate_init, causal)
        self.has_mlp = hidden > 0
        if not self.has_mlp:
            return
        self.norm2 = torch.nn.LayerNorm(a.width)
        self.W_1 = torch.nn.Parameter(torch.randn(a.width, hidden) * std)
        self.b_1 = torch.nn.Parameter(torch.zeros(hidden))
        self.W_2 = torch.nn.Parameter(torch.randn(hidden, a.width) * std / math.sqrt(2 * a.depth))
        self.b_2 = torch.nn.Parameter(torch.zeros(a.width))

    def forward(self, x):
        h = x + self.mixing(self.norm1(x))
        if not self.has_mlp:
            return h
        return h + F.gelu(self.norm2(h) @ self.W_1 + self.b_1, approximate="tanh") @ self.W_2 \
            + self.b_2


class Transformer(torch.nn.Module):
    """Token and position embeddings, the blocks, a final norm and the head tied to E."""

    def __init__(self, a, vocab, std=0.02):
        super().__init__()
        self.E = torch.nn.Parameter(torch.randn(vocab, a.width) * std)
        self.P = torch.nn.Parameter(torch.randn(a.n, a.width) * std)
        self.blocks = torch.nn.ModuleList(TransformerBlock(a, std) for _ in range(a.depth))
        self.norm = torch.nn.LayerNorm(a.width)

    def logits(self, tokens):
        x = self.E[tokens] + self.P
        for block in self.blocks:
            x = block(x)
        return self.norm(x) @ self.E.t()

    def forward(self, tokens, targets, weights=None):
        """The mean cross-entropy over every position, or its weighted mean (ufl's next_token
        loss: only positions of weight 1 are scored)."""
        logits = self.logits(tokens)
        if weights is None:  # as before the weights existed, to the bit
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        losses = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                 reduction="none")
        weights = weights.reshape(-1)
        return (losses * weights).sum() / weights.sum()

    def flops_per_step(self, a, vocab):
        """The matrix products of a step as ufl_transformer_bench counts them: 2·m·k·n each,
        backward twice the forward, the scores at full n x n."""
        n, width, heads = a.n, a.width, a.heads
        values = width // heads
        projections, mixing = width, heads * 2 * n * n * values
        if a.mixer != "linear":
            projections += 2 * heads * values
            mixing += heads * 2 * n * n * values
        block = 2 * n * width * projections + 2 * n * width * width + 2 * 2 * n * width * 4 * width \
            + mixing
        return 3.0 * a.batch * (a.depth * block + 2 * n * width * vocab)


def transformer_optimizer(model, a):
    """AdamW with decay on the matrices only (docs/transformer.md §3): not the norms, the MLP's
    biases, the universal heads' s and g."""
    no_decay = {"s", "g", "b_1", "b_2", "weight", "bias"}
    decay, rest = [], []
    for name, p in model.named_parameters():
        (rest if name.split(".")[-1] in no_decay else decay).append(p)
    return torch.optim.AdamW([{"params": decay, "weight_decay": a.weight_decay},
                              {"params": rest, "weight_decay": 0.0}],
                             lr=a.lr, betas=(0.9, 0.99), eps=1e-8)


def transformer_step(model, optimizer, tokens, targets, lr, clip, weights=None):
    for group in optimizer.param_groups:
        group["lr"] = lr
    loss = model(tokens, targets, weights)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if clip > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()
    return loss


def peak_memory_bytes():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def transformer_bench(a):
    text, _ = read_corpus(a.corpus)
    vocab = len(set(text))
    torch.manual_seed(a.seed)
    model = Transformer(a, vocab)
    optimizer = transformer_optimizer(model, a)
    generator = torch.Generator().manual_seed(a.seed)

    def step():
        tokens = torch.randint(vocab, (a.batch, a.n), generator=generator)
        targets = torch.randint(vocab, (a.batch, a.n), generator=generator)
        transformer_step(model, optimizer, tokens, targets, a.lr, a.clip)

    median, fastest, slowest, steps, repeats, warm = time_steps(step, a)
    flops = model.flops_per_step(a, vocab)
    print(json.dumps({
        "impl": "torch", "mixer": a.mixer, "n": a.n, "width": a.width, "depth": a.depth,
        "heads": a.heads, "batch": a.batch, "vocab": vocab, "threads": torch.get_num_threads(),
        "blas_threads": a.blas_threads,
        "ms_per_step": round(median, 4), "ms_min": round(fastest, 4), "ms_max": round(slowest, 4),
        "flops_per_step": flops, "gflops": round(flops / (median * 1e-3) / 1e9, 3),
        "parameters": sum(p.numel() for p in model.parameters()), "steps": steps,
        "repeats": repeats, "warmup": warm, "peak_memory_bytes": peak_memory_bytes(),
        "torch": torch.__version__, "blas": blas_library()}), flush=True)
    return 0


def token_windows(split_data, starts, n):
    """The windows of n tokens at `starts` and their next tokens, as a batch."""
    tokens = torch.stack([split_data[s:s + n] for s in starts])
    targets = torch.stack([split_data[s + 1:s + n + 1] for s in starts])
    return tokens, targets


@torch.no_grad()
def mean_window_loss(model, split_data, starts, n):
    """The model's loss averaged over the windows at `starts`, 50 at a time."""
    total = 0.0
    for first in range(0, len(starts), 50):
        tokens, targets = token_windows(split_data, starts[first:first + 50], n)
        total += model(tokens, targets).item() * len(tokens)
    return total / len(starts)


def mqar_sequences(rng, count, n, vocab, pairs, filler="random"):
    """`count` MQAR sequences of n + 1 tokens as ufl's `mqar` kind draws them (src/data/mqar.cpp,
    docs/transformer.md §2), with NumPy's generator, not ufl's: the pairs k1 v1 … (distinct keys
    from the vocabulary's first half, distinct values from its second), filler from the whole
    vocabulary (or the blank token `vocab` with filler "blank"), and each key queried once in a random two-position slot after the pairs, followed
    by its value. Returns the tokens and the weights of the n predicting positions."""
    half, slots = vocab // 2, (n + 1 - 2 * pairs) // 2
    sequences = rng.integers(0, vocab, size=(count, n + 1))
    if filler == "blank":
        sequences[:] = vocab
    weights = np.zeros((count, n), dtype=np.float32)
    for row in range(count):
        keys = rng.choice(half, pairs, replace=False)
        values = half + rng.choice(half, pairs, replace=False)
        sequences[row, 0:2 * pairs:2], sequences[row, 1:2 * pairs:2] = keys, values
        chosen = rng.choice(slots, pairs, replace=False)
        order = rng.permutation(pairs)
        at = 2 * pairs + 2 * chosen
        sequences[row, at], sequences[row, at + 1] = keys[order], values[order]
        weights[row, at] = 1.0
    return torch.tensor(sequences, dtype=torch.long), torch.tensor(weights)


def mqar_train(a):
    """Trains the block on MQAR and prints the test loss and accuracy at the queries (JSON)."""
    a.steps = a.steps or 3000
    rng = np.random.default_rng(a.seed)
    train_tokens, train_weights = mqar_sequences(rng, a.train_size, a.n, a.vocab, a.pairs, a.filler)
    test_tokens, test_weights = mqar_sequences(rng, a.test_size, a.n, a.vocab, a.pairs, a.filler)
    tokens_in_use = a.vocab + (1 if a.filler == "blank" else 0)
    torch.manual_seed(a.seed)
    model = Transformer(a, tokens_in_use)
    optimizer = transformer_optimizer(model, a)
    generator = torch.Generator().manual_seed(a.seed)

    @torch.no_grad()
    def test():
        logits = model.logits(test_tokens[:, :-1])
        targets, weights = test_tokens[:, 1:], test_weights
        losses = F.cross_entropy(logits.reshape(-1, tokens_in_use), targets.reshape(-1),
                                 reduction="none").view_as(weights)
        right = (logits.argmax(-1) == targets).float()
        return ((losses * weights).sum() / weights.sum()).item(), \
            ((right * weights).sum() / weights.sum()).item()

    curve, began = [], time.perf_counter()
    for step in range(1, a.steps + 1):
        rows = torch.randint(a.train_size, (a.batch,), generator=generator)
        tokens, weights = train_tokens[rows], train_weights[rows]
        loss = transformer_step(model, optimizer, tokens[:, :-1], tokens[:, 1:],
                                transformer_lr(step, a), a.clip, weights)
        if step % a.eval_every == 0 or step == a.steps:
            test_loss, accuracy = test()
            curve.append({"step": step, "train_loss": loss.item(), "test_loss": test_loss,
                          "accuracy": accuracy})
            print(f"step {step:5d}/{a.steps}  loss {loss.item():.4f}  test_loss {test_loss:.4f}"
                  f"  accuracy {accuracy:.3f}", file=sys.stderr, flush=True)
    result = {"impl": "torch", "task": "mqar", "mixer": a.mixer, "seed": a.seed,
              "steps": a.steps, "vocab": a.vocab, "pairs": a.pairs, "filler": a.filler, "n": a.n,
              "accuracy": curve[-1]["accuracy"], "test_loss": curve[-1]["test_loss"],
              "seconds": time.perf_counter() - began, "curve": curve}
    print(json.dumps(result))
    if a.out:
        with open(a.out, "w") as handle:
            json.dump(result, handle, indent=1)
    return 0


def induction_samples(rng, count, n, d, noise):
    """`count` samples of Section 7's `induction` kind (docs/section7.md §2, src/data/induction.cpp)
    with NumPy's generator, not ufl's: K = n/4 keys and values N(0, I_d); the first half holds the
    pairs side by side in a random order, the second the keys in another order, each followed by
    a blank whose target is its key's value and whose input is noise only. Returns the noisy
    inputs and the clean targets, count x n x d."""
    pairs, half = n // 4, n // 2
    keys = rng.standard_normal((count, pairs, d))
    values = rng.standard_normal((count, pairs, d))
    first = np.argsort(rng.random((count, pairs)), axis=1)
    second = np.argsort(rng.random((count, pairs)), axis=1)
    rows = np.arange(count)[:, None]
    clean = np.zeros((count, n, d))
    clean[:, 0:half:2], clean[:, 1:half:2] = keys[rows, first], values[rows, first]
    clean[:, half::2], clean[:, half + 1::2] = keys[rows, second], values[rows, second]
    shown = clean.copy()
    shown[:, half + 1::2] = 0.0
    noisy = shown + noise * rng.standard_normal((count, n, d))
    return torch.tensor(noisy, dtype=torch.float32), torch.tensor(clean, dtype=torch.float32)


class Denoiser(torch.nn.Module):
    """ufl's transformer blocks under `denoise` (docs/transformer.md §1, §7): the input
    zero-padded to the width plus the position embedding P, blocks without a causal mask, and
    the first d channels of the stream as the output."""

    def __init__(self, a, d, std=0.02):
        super().__init__()
        self.d, self.width = d, a.width
        self.P = torch.nn.Parameter(torch.randn(a.n, a.width) * std)
        self.blocks = torch.nn.ModuleList(TransformerBlock(a, std, causal=False)
                                          for _ in range(a.depth))

    def forward(self, x):
        h = F.pad(x, (0, self.width - self.d)) + self.P
        for block in self.blocks:
            h = block(h)
        return h[..., :self.d]


def induction_train(a):
    """Trains the blocks on Section 7's induction task (MSE) and prints the test MSE, the blank
    rows' MSE and η_fix against the best fixed operator's closed-form MSE (JSON)."""
    if a.mixer != "attention":
        raise SystemExit("torch_peer.py: --task induction trains attention only (the control)")
    if a.n % 4:
        raise SystemExit("torch_peer.py: --task induction needs --n divisible by 4")
    a.steps = a.steps or 6000
    rng = np.random.default_rng(a.seed)
    train_x, train_c = induction_samples(rng, a.train_size, a.n, a.d, a.noise)
    test_x, test_c = induction_samples(rng, a.test_size, a.n, a.d, a.noise)
    fixed_mse = induction_fixed_mse(a.n, a.noise)
    torch.manual_seed(a.seed)
    model = Denoiser(a, a.d)
    optimizer = transformer_optimizer(model, a)
    generator = torch.Generator().manual_seed(a.seed)
    blanks = slice(a.n // 2 + 1, a.n, 2)

    @torch.no_grad()
    def test():
        error = (model(test_x) - test_c) ** 2
        return error.mean().item(), error[:, blanks].mean().item()

    curve, began = [], time.perf_counter()
    for step in range(1, a.steps + 1):
        rows = torch.randint(a.train_size, (a.batch,), generator=generator)
        for group in optimizer.param_groups:
            group["lr"] = transformer_lr(step, a)
        loss = ((model(train_x[rows]) - train_c[rows]) ** 2).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if a.clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
        optimizer.step()
        if step % a.eval_every == 0 or step == a.steps:
            test_mse, blank_mse = test()
            curve.append({"step": step, "train_loss": loss.item(), "test_mse": test_mse,
                          "blank_mse": blank_mse, "eta_fix": fixed_mse / test_mse})
            print(f"step {step:5d}/{a.steps}  loss {loss.item():.4f}  test_mse {test_mse:.4f}  "
                  f"blank_mse {blank_mse:.4f}  eta_fix {fixed_mse / test_mse:.3f}",
                  file=sys.stderr, flush=True)
    result = {"impl": "torch", "task": "induction", "mixer": a.mixer, "seed": a.seed,
              "steps": a.steps, "n": a.n, "d": a.d, "noise": a.noise, "width": a.width,
              "depth": a.depth, "heads": a.heads, "lr": a.lr, "fixed_mse": fixed_mse,
              "test_mse": curve[-1]["test_mse"], "blank_mse": curve[-1]["blank_mse"],
              "eta_fix": curve[-1]["eta_fix"], "seconds": time.perf_counter() - began,
              "curve": curve}
    print(json.dumps({k: v for k, v in result.items() if k != "curve"}))
    if a.out:
        with open(a.out, "w") as handle:
            json.dump(result, handle, indent=1)
    return 0


def induction_fixed_mse(n, noise):
    """The best fixed linear operator's MSE, tr(Γ − ΓP(PΓP + σ²I)⁻¹PΓ)/n per channel
    (docs/section7.md §2): Γ the positions' covariance (two positions share a key or a value with
    probability 1/K), P the projector that drops the blank rows."""
    pairs, half = n // 4, n // 2
    gamma = np.eye(n)
    for first in range(0, half, 2):
        for second in range(half, n, 2):
            gamma[first, second] = gamma[second, first] = 1.0 / pairs
            gamma[first + 1, second + 1] = gamma[second + 1, first + 1] = 1.0 / pairs
    keep = np.ones(n)
    keep[half + 1::2] = 0.0
    projector = np.diag(keep)
    shown = projector @ gamma @ projector + noise ** 2 * np.eye(n)
    operator = gamma @ projector @ np.linalg.inv(shown)
    return float(np.trace(gamma - operator @ projector @ gamma) / n)


def transformer_train(a):
    if a.task == "mqar":
        return mqar_train(a)
    if a.task == "induction":
        return induction_train(a)
    a.steps = a.steps or 2000
    text, files = read_corpus(a.corpus)
    characters = sorted(set(text))
    index = {c: i for i, c in enumerate(characters)}
    data = torch.tensor([index[c] for c in text], dtype=torch.long)
    split = int(len(data) * (1 - a.val_fraction))
    train, validation = data[:split], data[split:]
    generator = torch.Generator().manual_seed(a.seed)
    val_starts = torch.randint(len(validation) - a.n, (a.val_windows,), generator=generator)
    torch.manual_seed(a.seed)
    model = Transformer(a, len(characters))
    optimizer = transformer_optimizer(model, a)

    def windows(split_data, starts):
        return token_windows(split_data, starts, a.n)

    def validation_loss():
        return mean_window_loss(model, validation, val_starts, a.n)

    curve, times = [], []
    for step in range(1, a.steps + 1):
        starts = torch.randint(len(train) - a.n, (a.batch,), generator=generator)
        tokens, targets = windows(train, starts)
        began = time.perf_counter()
        loss = transformer_step(model, optimizer, tokens, targets, transformer_lr(step, a),
                                a.clip).item()
        times.append(time.perf_counter() - began)
        if step % a.eval_every == 0 or step == a.steps:
            value = validation_loss()
            curve.append({"step": step, "train_loss": loss, "val_loss": value})
            print(f"step {step:5d}/{a.steps}  loss {loss:.4f}  val_loss {value:.4f}", file=sys.stderr,
                  flush=True)
    result = {"impl": "torch", "mixer": a.mixer, "seed": a.seed, "threads": a.threads,
              "steps": a.steps, "vocab": len(characters), "characters": len(data),
              "files": len(files), "validation_loss": curve[-1]["val_loss"],
              "validation_bits": curve[-1]["val_loss"] / math.log(2),
              "parameters": sum(p.numel() for p in model.parameters()),
              "ms_per_step": 1e3 * sum(times[10:]) / max(1, len(times) - 10),
              "peak_memory_bytes": peak_memory_bytes(), "curve": curve}
    print(json.dumps(result))
    if a.out:
        with open(a.out, "w") as handle:
            json.dump(result, handle, indent=1)
    return 0


def ufl_initial_parameters(model, a, vocab, seed):
    """Overwrites `model`'s parameters with those ufl draws at `seed` (src/model/initialize.hpp):
    one stream, E, P, then each block's modules in order (each head's mixer parameters and W_v,
    W_o, the MLP's W_1 and W_2), row-major, N(0, std²) and N(0, (std/√(2L))²) for W_o and W_2."""
    from ufl_rng import Rng, STREAM_LAYER_INIT
    rng = Rng(seed, STREAM_LAYER_INIT)
    std, residual_std = a.init_std, a.init_std / math.sqrt(2 * a.depth)

    def draw(rows, cols, scale=std):
        return torch.tensor(rng.normals(rows * cols, scale), dtype=torch.float64).view(
            rows, cols).float()

    with torch.no_grad():
        model.E.copy_(draw(vocab, a.width))
        model.P.copy_(draw(a.n, a.width))
        for block in model.blocks:
            mixing = block.mixing
            r, dv, width = mixing.r, mixing.dv, a.width
            for k in range(a.heads):
                q_cols = slice(k * r, (k + 1) * r)
                k_cols = slice(a.heads * r + k * r, a.heads * r + (k + 1) * r)
                v_cols = slice(mixing.W_in.shape[1] - width + k * dv,
                               mixing.W_in.shape[1] - width + (k + 1) * dv)
                if a.mixer in ("universal", "distance"):
                    mixing.W_in[:, q_cols] = draw(width, r)
                    mixing.A_pos[k] = draw(a.n, r)
                    mixing.W_in[:, k_cols] = draw(width, r)
                    mixing.B_pos[k] = draw(a.n, r)
                elif a.mixer == "attention":
                    mixing.W_in[:, q_cols] = draw(width, r)
                    mixing.W_in[:, k_cols] = draw(width, r)
                else:
                    raise SystemExit("--replay: mixer " + a.mixer + " is not replayed")
                mixing.W_in[:, v_cols] = draw(width, dv)
            mixing.W_o.copy_(draw(width, width, residual_std))
            block.W_1.copy_(draw(width, block.W_1.shape[1]))
            block.W_2.copy_(draw(block.W_2.shape[0], width, residual_std))


def transformer_replay(a):
    """Trains as `ufl train` trained RUN: the same config, initial parameters, minibatches and
    validation windows; prints the first steps' losses side by side and exits 1 when they differ
    by more than --tolerance."""
    import csv
    from ufl_rng import MinibatchOrder, Rng
    with open(os.path.join(a.replay, "config.json")) as handle:
        config = json.load(handle)
    dataset, layer, model_config, train_config = (config["dataset"], config["layer"],
                                                  config["model"], config["train"])
    if config["task"]["kind"] != "next_token" or dataset["kind"] != "text":
        raise SystemExit("--replay: " + a.replay + " is not a next_token run on text")
    if model_config["norm"] != "layernorm" or not model_config["position_embedding"] or \
            model_config["mlp_ratio"] != 4 or layer["rank"] * layer["heads"] != model_config["width"]:
        raise SystemExit("--replay: the peer has layernorm, P, mlp_ratio 4 and rank = width/heads")
    a.mixer, a.n, a.width, a.depth, a.heads = (layer["mixer"], dataset["n"], model_config["width"],
                                               model_config["depth"], layer["heads"])
    a.batch, a.lr, a.lr_final = train_config["batch_size"], train_config["lr"], train_config["lr_final"]
    a.warmup_steps, a.weight_decay, a.clip = (train_config["warmup_steps"],
                                              train_config["weight_decay"], train_config["clip"])
    a.init_std, a.steps = model_config["init_std"], a.steps or train_config["steps"]
    a.gate_init = layer.get("gate_init", 0.5)  # runs made before the key started at ½
    schedule_steps = train_config["steps"]
    if train_config["beta2"] != 0.99:
        raise SystemExit("--replay: the peer's AdamW has beta2 0.99")
    text, _ = read_corpus(dataset["path"])
    characters = sorted(set(text))
    index = {c: i for i, c in enumerate(characters)}
    data = torch.tensor([index[c] for c in text], dtype=torch.long)
    split = int(len(data) * (1 - dataset["val_fraction"]))
    train, validation = data[:split], data[split:]
    val_rng = Rng(dataset["seed"], 3)  # Stream::kTestSamples
    val_starts = [val_rng.below(len(validation) - a.n) for _ in range(dataset["val_windows"])]
    order = MinibatchOrder(len(train) - a.n, config["seed"])
    torch.manual_seed(config["seed"])
    model = Transformer(a, len(characters))
    ufl_initial_parameters(model, a, len(characters), config["seed"])
    optimizer = transformer_optimizer(model, a)
    schedule = argparse.Namespace(lr=a.lr, lr_final=a.lr_final, warmup_steps=a.warmup_steps,
                                  steps=schedule_steps)

    def windows(split_data, starts):
        return token_windows(split_data, starts, a.n)

    def validation_loss():
        return mean_window_loss(model, validation, val_starts, a.n)

    ufl_losses, ufl_val = {}, {}
    with open(os.path.join(a.replay, "loss.csv")) as handle:
        for row in csv.DictReader(handle):
            ufl_losses[int(row["step"])] = float(row["train_loss"])
            if row["val_loss"]:
                ufl_val[int(row["step"])] = float(row["val_loss"])
    curve, worst = [], 0.0
    for step in range(1, a.steps + 1):
        tokens, targets = windows(train, [order.next() for _ in range(a.batch)])
        loss = transformer_step(model, optimizer, tokens, targets,
                                transformer_lr(step, schedule), a.clip).item()
        ufl = ufl_losses.get(step)
        if step <= a.compare_steps and ufl is not None:
            worst = max(worst, abs(loss - ufl))
        point = {"step": step, "train_loss": loss, "ufl_train_loss": ufl}
        if step % train_config["eval_every"] == 0 or step == a.steps:
            point["val_loss"], point["ufl_val_loss"] = validation_loss(), ufl_val.get(step)
            print(f"step {step:5d}  torch {loss:.6f} ufl {ufl}  val torch {point['val_loss']:.4f} "
                  f"ufl {point['ufl_val_loss']}", file=sys.stderr, flush=True)
        curve.append(point)
    agree = worst <= a.tolerance
    gates = [torch.sigmoid(block.mixing.g).flatten().tolist() for block in model.blocks
             if a.mixer in ("universal", "distance")]
    result = {"impl": "torch-replay", "run": a.replay, "mixer": a.mixer, "seed": config["seed"],
              "steps": a.steps, "compare_steps": a.compare_steps,
              "max_loss_difference": worst, "agree": agree, "gamma": gates,
              "validation_loss": curve[-1].get("val_loss"), "curve": curve}
    print(json.dumps({k: v for k, v in result.items() if k != "curve"}))
    if a.out:
        with open(a.out, "w") as handle:
            json.dump(result, handle, indent=1)
    print(f"first {a.compare_steps} steps: max |torch − ufl| loss {worst:.2e} "
          f"({'within' if agree else 'OVER'} {a.tolerance:g})", file=sys.stderr)
    return 0 if agree else 1


if __name__ == "__main__":
    if ARGS.command == "transformer":
        if ARGS.replay:
            sys.exit(transformer_replay(ARGS))
        sys.exit(transformer_bench(ARGS) if ARGS.bench else transformer_train(ARGS))
    if ARGS.check:
        sys.exit(check())
    if ARGS.compare:
        sys.exit(compare(ARGS.compare))
    if ARGS.gemm_peak:
        gemm_peak(ARGS)
    else:
        bench(ARGS)
