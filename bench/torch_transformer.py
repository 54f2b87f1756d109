#!/usr/bin/python3
"""The PyTorch peer of ufl's transformer block (docs/transformer.md), on the same corpus.

Character-level next-token prediction with the block of docs/transformer.md §1-§3, written
independently of ufl from that page, so that ufl's validation loss can be held against it:
    x = E[tokens] + P                           E: vocab x D, P: n x D, N(0, 0.02^2)
    h = x + concat_k(head_k(LN1(x))) W_o        W_o: N(0, (0.02/sqrt(2L))^2)
    x = h + GELU_tanh(LN2(h) W_1 + b_1) W_2 + b_2
    logits = LN_f(x) E^T                        tied head; loss = mean cross-entropy (nats)
A head of `attention`: softmax_causal((y W_q)(y W_k)^T / sqrt(r)) (y W_v);
a head of `universal`: y~ = [y, e_i, 1], U = y~ A, V = y~ B, S = U diag(softplus s) V^T / sqrt(r),
M = (1 - gamma) (S * L) + gamma softmax_causal(S), gamma = sigmoid(g); M (y W_v).
AdamW (beta = (0.9, 0.99), eps 1e-8, decay on 2-D parameters only), linear warm-up then cosine,
global gradient-norm clipping, no dropout: nanoGPT's shakespeare_char CPU setting by default.

Data as ufl reads it: dataset.path is a file or a folder whose regular, non-link files that are
UTF-8 text without NUL are concatenated in name order; the sorted characters are the vocabulary;
the first 90% train (random windows of n + 1 characters each step), the last 10% validate on
--val-windows fixed random windows. Prints progress and one JSON line at the end (--out writes
it to a file too).

    /usr/bin/python3 bench/torch_transformer.py --mixer universal --seed 1 --threads 1

Run with /usr/bin/python3 (Debian's python3-torch); PyTorch is never a dependency of ufl.
"""
import argparse
import json
import math
import os
import sys
import time


def _threads_from_argv(argv):
    for k, word in enumerate(argv):
        if word == "--threads" and k + 1 < len(argv):
            return argv[k + 1]
        if word.startswith("--threads="):
            return word.split("=", 1)[1]
    return "1"


# OpenBLAS starts its own threads unless told otherwise; torch.set_num_threads does not reach them,
# and threads that spin beside other work can make a step many times slower.
os.environ.setdefault("OPENBLAS_NUM_THREADS", _threads_from_argv(sys.argv))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", default="/usr/share/games/fortunes")
    p.add_argument("--mixer", choices=["attention", "universal"], default="universal")
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--batch", type=int, default=12)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lr-final", type=float, default=1e-4)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--val-fraction", type=float, default=0.1)
    p.add_argument("--val-windows", type=int, default=200)
    p.add_argument("--eval-every", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", help="also write the JSON result here")
    p.add_argument("--step-bench", type=int, default=0,
                   help="only time this many training steps on random tokens (no corpus), after 5 "
                        "untimed ones, and print ms per step")
    p.add_argument("--vocab", type=int, default=113, help="vocabulary of --step-bench")
    return p.parse_args(argv)


def read_corpus(path):
    """The corpus's text and the files read, as docs/transformer.md §2 says ufl reads it."""
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


def learning_rate(step, a):
    """ufl's schedule (docs/transformer.md §3), step = 1..T."""
    if step <= a.warmup:
        return a.lr * step / a.warmup
    progress = (step - a.warmup - 1) / max(1, a.steps - a.warmup - 1)
    return a.lr_final + (a.lr - a.lr_final) * (1 + math.cos(math.pi * progress)) / 2


class Head(nn.Module):
    def __init__(self, mixer, n, width, r, std):
        super().__init__()
        self.mixer, self.r = mixer, r
        if mixer == "attention":
            self.W_q = nn.Parameter(torch.randn(width, r) * std)
            self.W_k = nn.Parameter(torch.randn(width, r) * std)
        else:
            # rows: content (width), position (n), bias (1, zero)
            self.A = nn.Parameter(torch.cat([torch.randn(width + n, r) * std, torch.zeros(1, r)]))
            self.B = nn.Parameter(torch.cat([torch.randn(width + n, r) * std, torch.zeros(1, r)]))
            self.s = nn.Parameter(torch.full((r,), math.log(math.e - 1)))  # softplus(s) = 1
            self.g = nn.Parameter(torch.zeros(()))  # gamma = 1/2
        self.W_v = nn.Parameter(torch.randn(width, r) * std)  # the head's value slice

    def mixing(self, y):
        n = y.shape[1]
        mask = torch.ones(n, n, dtype=torch.bool).tril()
        if self.mixer == "attention":
            S = (y @ self.W_q) @ (y @ self.W_k).transpose(1, 2) / math.sqrt(self.r)
            return F.softmax(S.masked_fill(~mask, float("-inf")), dim=-1)
        width = y.shape[2]
        # [y, e_i, 1] A without building the one-hot columns: content rows, position rows, bias.
        U = y @ self.A[:width] + self.A[width:width + n] + self.A[width + n]
        V = y @ self.B[:width] + self.B[width:width + n] + self.B[width + n]
        S = (U * F.softplus(self.s)) @ V.transpose(1, 2) / math.sqrt(self.r)
        gamma = torch.sigmoid(self.g)
        attention = F.softmax(S.masked_fill(~mask, float("-inf")), dim=-1)
        return (1 - gamma) * S.masked_fill(~mask, 0.0) + gamma * attention


class Block(nn.Module):
    def __init__(self, mixer, n, width, heads, depth, std):
        super().__init__()
        r = width // heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.heads = nn.ModuleList(Head(mixer, n, width, r, std) for _ in range(heads))
        residual_std = std / math.sqrt(2 * depth)
        self.W_o = nn.Parameter(torch.randn(width, width) * residual_std)
        self.W_1 = nn.Parameter(torch.randn(width, 4 * width) * std)
        self.b_1 = nn.Parameter(torch.zeros(4 * width))
        self.W_2 = nn.Parameter(torch.randn(4 * width, width) * residual_std)
        self.b_2 = nn.Parameter(torch.zeros(width))

    def forward(self, x):
        y = self.norm1(x)
        heads = [head.mixing(y) @ (y @ head.W_v) for head in self.heads]
        h = x + torch.cat(heads, dim=-1) @ self.W_o
        z = F.gelu(self.norm2(h) @ self.W_1 + self.b_1, approximate="tanh")
        return h + z @ self.W_2 + self.b_2


class Transformer(nn.Module):
    def __init__(self, a, vocab, std=0.02):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, a.width) * std)
        self.P = nn.Parameter(torch.randn(a.n, a.width) * std)
        self.blocks = nn.ModuleList(
            Block(a.mixer, a.n, a.width, a.heads, a.depth, std) for _ in range(a.depth))
        self.norm = nn.LayerNorm(a.width)

    def forward(self, tokens, targets):
        x = self.E[tokens] + self.P
        for block in self.blocks:
            x = block(x)
        logits = self.norm(x) @ self.E.t()
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def optimizer_of(model, a):
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": a.weight_decay},
                              {"params": rest, "weight_decay": 0.0}],
                             lr=a.lr, betas=(0.9, 0.99), eps=1e-8)


def train_step(model, optimizer, tokens, targets, lr, clip):
    for group in optimizer.param_groups:
        group["lr"] = lr
    loss = model(tokens, targets)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if clip > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()
    return loss.item()


def step_bench(a):
    torch.manual_seed(a.seed)
    model = Transformer(a, a.vocab)
    optimizer = optimizer_of(model, a)
    tokens = torch.randint(a.vocab, (a.batch, a.n))
    targets = torch.randint(a.vocab, (a.batch, a.n))
    for _ in range(5):
        train_step(model, optimizer, tokens, targets, a.lr, a.clip)
    start = time.perf_counter()
    for _ in range(a.step_bench):
        train_step(model, optimizer, tokens, targets, a.lr, a.clip)
    ms = (time.perf_counter() - start) / a.step_bench * 1e3
    print(json.dumps({"impl": "torch", "mixer": a.mixer, "threads": a.threads, "n": a.n,
                      "width": a.width, "depth": a.depth, "heads": a.heads, "batch": a.batch,
                      "ms_per_step": ms,
                      "parameters": sum(p.numel() for p in model.parameters())}))


def main(argv=None):
    a = parse_args(argv)
    torch.set_num_threads(a.threads)
    if a.step_bench > 0:
        return step_bench(a)
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
    optimizer = optimizer_of(model, a)

    def windows(split_data, starts):
        tokens = torch.stack([split_data[s:s + a.n] for s in starts])
        targets = torch.stack([split_data[s + 1:s + a.n + 1] for s in starts])
        return tokens, targets

    @torch.no_grad()
    def validation_loss():
        total = 0.0
        for first in range(0, a.val_windows, 50):
            tokens, targets = windows(validation, val_starts[first:first + 50])
            total += model(tokens, targets).item() * len(tokens)
        return total / a.val_windows

    curve, times = [], []
    for step in range(1, a.steps + 1):
        starts = torch.randint(len(train) - a.n, (a.batch,), generator=generator)
        tokens, targets = windows(train, starts)
        began = time.perf_counter()
        loss = train_step(model, optimizer, tokens, targets, learning_rate(step, a), a.clip)
        times.append(time.perf_counter() - began)
        if step % a.eval_every == 0 or step == a.steps:
            value = validation_loss()
            curve.append({"step": step, "train_loss": loss, "val_loss": value})
            print(f"step {step:5d}/{a.steps}  loss {loss:.4f}  val_loss {value:.4f}  "
                  f"{1e3 * sum(times[-a.eval_every:]) / len(times[-a.eval_every:]):.1f} ms/step",
                  file=sys.stderr, flush=True)
    result = {"impl": "torch", "mixer": a.mixer, "seed": a.seed, "threads": a.threads,
              "steps": a.steps, "vocab": len(characters), "characters": len(data),
              "files": len(files), "validation_loss": curve[-1]["val_loss"],
              "validation_bits": curve[-1]["val_loss"] / math.log(2),
              "parameters": sum(p.numel() for p in model.parameters()),
              "ms_per_step": 1e3 * sum(times[10:]) / max(1, len(times) - 10), "curve": curve}
    print(json.dumps(result))
    if a.out:
        with open(a.out, "w") as handle:
            json.dump(result, handle, indent=1)


if __name__ == "__main__":
    main()
