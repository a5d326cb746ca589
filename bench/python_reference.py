#!/usr/bin/python3
"""Python reference for the training-throughput benchmark (bench/run_training_bench.sh).

A plain PyTorch re-implementation of what poslab_bench_training trains, so the two can be timed
side by side with the same shapes, optimiser and thread count:

  model   TinyTransformer of core/model/transformer.h with the RoPE family: token embedding ->
          `layers` pre-norm blocks [RMSNorm -> causal attention (qkv Linear C->3C with bias,
          RoPE on q and k, proj Linear C->C) -> residual -> RMSNorm -> Linear C->mC, GELU,
          Linear mC->C -> residual] -> final RMSNorm -> Linear head C->vocab; m = --mlp-ratio
          (4, PosLab's default).
          RMSNorm: x * rsqrt(mean(x^2) + 1e-6) * weight.
          RoPE: channel pairs (x[2c], x[2c+1]) rotated by e^{-i theta_c p}, theta_c = 10000^(-2c/D),
          scores scaled by 1/sqrt(D) (core/encodings/rope_like.h).
  task    kernel-lm shape: vocab 3, T-1 random bits then QUERY (= 2); the only target is at the
          last position (sign of a kernel-weighted sum of the bits), -1 (ignored) elsewhere.
          Generated with torch ops; the data differ from PosLab's, the work per step does not.
  optim   AdamW, betas (0.9, 0.98), weight decay 0.01 on 2-D weights (0 on norms and biases),
          linear warm-up then cosine to 0.1 * lr, gradient-norm clip 1.0, cross-entropy with
          ignore_index -1. Per step, like poslab::Trainer::step: loss.item() (finite check),
          the clipped norm, and the accuracy at the answer position.

Prints one JSON line: {"impl": "python", "tokens_per_s": ..., "steps": ..., "batch": ...,
"T": ..., "threads": ..., "seconds": ..., "final_loss": ...}.
Example: /usr/bin/python3 bench/python_reference.py --threads 2 --steps 100
"""

import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

QUERY_TOKEN = 2  # kernel-lm: bits are 0 and 1, the query token is 2
VOCAB = 3
ROPE_BASE = 10000.0
RMS_EPS = 1e-6


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):  # (..., C) -> (..., C)
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + RMS_EPS) * self.weight


def rope_tables(T, hs):
    """cos, sin of theta_c * p: (T, hs/2) each, theta_c = base^(-2c/hs)."""
    c = torch.arange(hs // 2, dtype=torch.float64)
    theta = ROPE_BASE ** (-2.0 * c / hs)
    phase = torch.arange(T, dtype=torch.float64).unsqueeze(1) * theta.unsqueeze(0)
    return phase.cos().float(), phase.sin().float()


def rotate(x, cos, sin):
    """(B, H, T, hs): pairs (x[2c], x[2c+1]) multiplied by e^{-i theta_c p}."""
    re, im = x[..., 0::2], x[..., 1::2]  # (B, H, T, hs/2)
    # (re + i im)(cos - i sin) = (re cos + im sin) + i (im cos - re sin)
    out_re = re * cos + im * sin
    out_im = im * cos - re * sin
    return torch.stack((out_re, out_im), dim=-1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, C, H):
        super().__init__()
        self.H, self.hs = H, C // H
        self.qkv = nn.Linear(C, 3 * C)
        self.proj = nn.Linear(C, C)

    def forward(self, x, cos, sin, mask):  # x (B, T, C)
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.H, self.hs).permute(2, 0, 3, 1, 4)  # (B, H, T, hs)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(self.hs)  # (B, H, T, T)
        s = s.masked_fill(mask, float("-inf"))
        y = torch.softmax(s, -1) @ v  # (B, H, T, hs)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, C, H, mlp_ratio):
        super().__init__()
        self.norm1, self.norm2 = RMSNorm(C), RMSNorm(C)
        self.attn = Attention(C, H)
        self.fc1 = nn.Linear(C, mlp_ratio * C)
        self.fc2 = nn.Linear(mlp_ratio * C, C)

    def forward(self, x, cos, sin, mask):
        h = x + self.attn(self.norm1(x), cos, sin, mask)
        return h + self.fc2(F.gelu(self.fc1(self.norm2(h))))


class TinyTransformer(nn.Module):
    def __init__(self, vocab, C, H, layers, mlp_ratio):
        super().__init__()
        self.hs = C // H
        self.embed = nn.Embedding(vocab, C)
        self.blocks = nn.ModuleList(Block(C, H, mlp_ratio) for _ in range(layers))
        self.final_norm = RMSNorm(C)
        self.head = nn.Linear(C, vocab)
        # GPT-2-style initialisation, as PosLab: N(0, 0.02) matrices, zero biases.
        for name, p in self.named_parameters():
            with torch.no_grad():
                if "bias" in name:
                    p.zero_()
                elif p.dim() == 2:
                    p.normal_(0.0, 0.02)

    def forward(self, tokens):  # (B, T) int64 -> (B, T, vocab)
        T = tokens.shape[1]
        cos, sin = rope_tables(T, self.hs)
        pos = torch.arange(T)
        mask = pos.unsqueeze(1) < pos.unsqueeze(0)  # (T, T): key after query
        x = self.embed(tokens)
        for b in self.blocks:
            x = b(x, cos, sin, mask)
        return self.head(self.final_norm(x))


def kernel_weights(T, hs, L):
    """mixed_raw lag kernel (d/L) cos(omega d), omega = base^(-6/hs), d = 1..T-1, unit L2 norm."""
    d = torch.arange(1, T, dtype=torch.float64)
    k = (d / L) * torch.cos(ROPE_BASE ** (-6.0 / hs) * d)
    return (k / k.norm()).float()


def make_batch(B, T, weights, gen):
    """kernel-lm shape: tokens (B, T), targets (B, T) with -1 except at T-1, answer (B, T) bool."""
    bits = torch.randint(0, 2, (B, T - 1), generator=gen)
    x = (2 * bits - 1).float()  # x_t in {-1, 1}
    # score = sum_d x_{T-1-d} K(d): the bits read backwards from the query.
    score = x.flip(1) @ weights
    tokens = torch.cat((bits, torch.full((B, 1), QUERY_TOKEN)), 1)
    targets = torch.full((B, T), -1, dtype=torch.long)
    targets[:, -1] = (score > 0).long()
    answer = torch.zeros(B, T, dtype=torch.bool)
    answer[:, -1] = True
    return tokens, targets, answer


def lr_at(step, total, lr, warmup, min_ratio):
    """As poslab::learningRateAt: linear warm-up, then cosine to min_ratio * lr."""
    if warmup > 0 and step < warmup:
        return lr * (step + 1) / warmup
    span = max(1, total - warmup)
    progress = min(max((step - warmup) / span, 0.0), 1.0)
    return lr * (min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    ap.add_argument("--steps", type=int, default=100, help="timed optimisation steps")
    ap.add_argument("--warmup-steps", type=int, default=5, help="untimed steps before timing")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--T", type=int, default=64)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--mlp-ratio", type=int, default=4, help="MLP hidden width / d_model")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trace", default="",
                    help="write a chrome://tracing JSON of the timed steps' torch ops (slows them)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed + 1)

    # Same defaults as poslab::OptimConfig.
    lr, warmup, min_ratio, clip = 3e-3, 50, 0.1, 1.0
    model = TinyTransformer(VOCAB, args.d_model, args.heads, args.layers, args.mlp_ratio)
    model.train()
    decay = [p for p in model.parameters() if p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.dim() != 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
        lr=lr, betas=(0.9, 0.98))
    weights = kernel_weights(args.T, args.d_model // args.heads, float(args.T))
    total = args.warmup_steps + args.steps

    def step(i):
        tokens, targets, answer = make_batch(args.batch, args.T, weights, gen)
        opt.zero_grad()
        logits = model(tokens)  # (B, T, V)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=-1)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            raise RuntimeError(f"loss not finite at step {i}")
        acc = ((logits.argmax(-1) == targets) & answer).sum().item() / answer.sum().item()
        loss.backward()
        norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), clip))
        if not math.isfinite(norm):
            raise RuntimeError(f"gradient norm not finite at step {i}")
        for g in opt.param_groups:
            g["lr"] = lr_at(i, total, lr, warmup, min_ratio)
        opt.step()
        return loss_value, acc

    for i in range(args.warmup_steps):
        step(i)
    profile = torch.autograd.profiler.profile(enabled=bool(args.trace))
    with profile:
        t0 = time.perf_counter()
        for i in range(args.warmup_steps, total):
            loss_value, _ = step(i)
        seconds = time.perf_counter() - t0
    if args.trace:
        profile.export_chrome_trace(args.trace)

    print(json.dumps({
        "impl": "python",
        "tokens_per_s": args.steps * args.batch * args.T / seconds,
        "steps": args.steps,
        "batch": args.batch,
        "T": args.T,
        "threads": torch.get_num_threads(),
        "seconds": seconds,
        "final_loss": loss_value,
    }))


if __name__ == "__main__":
    main()
