#!/usr/bin/python3
"""Writes the TorchScript families the tests load (docs/ENCODINGS.md), with the Python torch that
the setup installs (python3-torch). Usage: write_modules.py OUT_DIR

Three families written from docs/MATH.md, to equal the built-ins:
  rope.pt          RoPE (MATH 1.2): pairs (2c, 2c+1) turn by e^(-i theta_c p), theta_c = base^(-2c/D)
  alibi.pt         ALiBi (MATH 1.3): b_h(i,j) = -m_h d, bias only
  damped.pt        damped RoPE (MATH 1.5): D/4 blocks of two complex dims at omega_b = base^(-2b/D),
                   decay e^(-gamma_h d) per head, gamma learned
and hostile ones that PosLab must refuse with one line (bad_*.pt, not_torchscript.pt).
"""
import json
import math
import os
import sys
from typing import Tuple

import torch
from torch import Tensor


def meta(title, formula, relative, params):
    return json.dumps({"title": title, "formula": formula, "relative": relative, "params": params})


ROPE_META = meta("RoPE (TorchScript)", "s(i,j) = Σ_c Re( q̄_c k_c e^{iθ_c d} ),  θ_c = base^{−2c/D}",
                 True, [{"name": "base", "symbol": "base", "min": 1.0001, "max": 1e9,
                         "default": 10000.0, "learned": False,
                         "description": "theta_c = base^(-2c/D)"}])


def rotate(x: Tensor, angle: Tensor) -> Tensor:
    """Pairs (2c, 2c+1) of x (B, H, T, D) times e^(-i angle), angle (T, D/2)."""
    re, im = x[..., 0::2], x[..., 1::2]
    c, s = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    return torch.stack((re * c + im * s, im * c - re * s), dim=-1).flatten(-2)


class Rope(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.base = 10000.0
        self.head_dim = 16  # PosLab sets the model's (for kernel(), which is not given D)

    def theta(self, D: int) -> Tensor:
        c = torch.arange(0, D // 2, dtype=torch.float64)
        return torch.pow(torch.tensor(self.base, dtype=torch.float64), -2.0 * c / D)

    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def factorize(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tuple[Tensor, Tensor]:
        th = self.theta(q.size(-1))
        return (rotate(q, q_pos.to(torch.float64)[:, None] * th),
                rotate(k, k_pos.to(torch.float64)[:, None] * th))

    @torch.jit.export
    def kernel(self, lags: Tensor) -> Tensor:
        th = self.theta(self.head_dim)
        return torch.cos(lags[:, None] * th).mean(dim=1)


ALIBI_META = meta("ALiBi (TorchScript)", "b_h(i,j) = −m_h d,  m_h = 2^{−8h/H}", True, [])


def power_of_two_slopes(n: int) -> Tensor:
    h = torch.arange(1, n + 1, dtype=torch.float64)
    return torch.pow(2.0, -8.0 * h / n)


def alibi_slopes(H: int) -> Tensor:
    c = 1
    while c * 2 <= H:
        c *= 2
    slopes = power_of_two_slopes(c)
    if c == H:
        return slopes
    extra = power_of_two_slopes(2 * c)[0::2][: H - c]
    return torch.cat((slopes, extra))


class Alibi(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = 4  # PosLab sets the model's (for kernel(), which is not given H)

    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def bias(self, q_pos: Tensor, k_pos: Tensor, heads: int) -> Tensor:
        d = (q_pos[:, None] - k_pos[None, :]).clamp(min=0).to(torch.float64)
        return -alibi_slopes(heads)[:, None, None] * d[None]

    @torch.jit.export
    def kernel(self, lags: Tensor) -> Tensor:
        return -alibi_slopes(self.heads)[:, None] * lags[None, :]


DAMPED_META = meta(
    "Damped RoPE (TorchScript)",
    "s(i,j) = Σ_b e^{−γ_h d} Re( q_b^H k_b e^{iω_b d} ),  ω_b = base^{−2b/D}, b < D/4",
    True,
    [{"name": "gamma", "symbol": "γ", "min": 0.0, "max": 10.0, "default": 1e-4, "learned": True,
      "per_head": True, "description": "decay per head"},
     {"name": "base", "symbol": "base", "min": 1.0001, "max": 1e9, "default": 10000.0,
      "learned": False}])


class Damped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gamma = torch.nn.Parameter(torch.full((4, 1), 1e-4))  # (H, 1), resized by PosLab
        self.base = 10000.0
        self.head_dim = 16

    def omega(self, D: int) -> Tensor:
        b = torch.arange(0, D // 4, dtype=torch.float64)
        return torch.pow(torch.tensor(self.base, dtype=torch.float64), -2.0 * b / D)

    def turn(self, x: Tensor, pos: Tensor, sign: float) -> Tensor:
        # (B, H, T, D): block b is channels 4b..4b+3, two complex numbers at omega_b, times
        # e^(-i omega_b p) and e^(sign gamma_h p).
        D = x.size(-1)
        angle = pos.to(torch.float64)[:, None] * self.omega(D).repeat_interleave(2)  # (T, D/2)
        growth = torch.exp(sign * self.gamma[:, :, None] * pos.to(torch.float64)[None, :, None])
        return rotate(x, angle) * growth.to(x.dtype)  # growth (H, T, 1)

    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def factorize(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tuple[Tensor, Tensor]:
        return self.turn(q, q_pos, -1.0), self.turn(k, k_pos, 1.0)

    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        # The direct form: rotations only (no growth), then the decay e^(-gamma d) per lag.
        D = q.size(-1)
        w = self.omega(D).repeat_interleave(2)
        s = rotate(q, q_pos.to(torch.float64)[:, None] * w) @ rotate(
            k, k_pos.to(torch.float64)[:, None] * w).transpose(-1, -2)
        d = (q_pos[:, None] - k_pos[None, :]).clamp(min=0).to(torch.float64)
        return s * torch.exp(-self.gamma[:, :, None] * d[None]).to(q.dtype)

    @torch.jit.export
    def kernel(self, lags: Tensor) -> Tensor:
        w = self.omega(self.head_dim)
        return (torch.exp(-self.gamma[:, :, None] * lags) * torch.cos(w[None, :, None] * lags)).mean(1)


class LinearBias(torch.nn.Module):
    """A bias-only family without kernel(): b(i,j) = -0.25 d for every head."""

    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def bias(self, q_pos: Tensor, k_pos: Tensor, heads: int) -> Tensor:
        d = (q_pos[:, None] - k_pos[None, :]).clamp(min=0).to(torch.float64)
        return (-0.25 * d)[None].expand(heads, -1, -1)


# ---- hostile files ---------------------------------------------------------------------------
OK_META = meta("hostile", "s", False, [])


class NoMetadata(torch.nn.Module):
    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        return q @ k.transpose(-1, -2)


class WrongSignature(torch.nn.Module):
    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor) -> Tensor:
        return q @ k.transpose(-1, -2)


class WrongShape(torch.nn.Module):
    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        return (q @ k.transpose(-1, -2))[:, :, :, :-1]


class NaNs(torch.nn.Module):
    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        return q @ k.transpose(-1, -2) * float("nan")


class NonCausal(torch.nn.Module):
    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        # Every score sees the sum of all keys, the future included.
        return q @ (k + k.sum(dim=2, keepdim=True)).transpose(-1, -2)


class Huge(torch.nn.Module):
    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def factorize(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tuple[Tensor, Tensor]:
        return q.repeat(1, 1, 1, 4096), k.repeat(1, 1, 1, 4096)


class Raises(torch.nn.Module):
    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        raise RuntimeError("this module refuses to score")


class FalseRelative(torch.nn.Module):
    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def bias(self, q_pos: Tensor, k_pos: Tensor, heads: int) -> Tensor:
        return (q_pos[:, None] * 0.01 + k_pos[None, :] * 0.0).to(torch.float64).expand(heads, -1, -1)


class UnusedParameter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.unused = torch.nn.Parameter(torch.zeros(3))

    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        return q @ k.transpose(-1, -2)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    good = {"rope": Rope, "alibi": Alibi, "damped": Damped, "linear_bias": LinearBias}
    bad = {"bad_no_metadata": NoMetadata, "bad_signature": WrongSignature,
           "bad_shape": WrongShape, "bad_nan": NaNs, "bad_noncausal": NonCausal,
           "bad_huge": Huge, "bad_raises": Raises, "bad_relative": FalseRelative,
           "bad_unused_parameter": UnusedParameter}
    metas = {"rope": ROPE_META, "alibi": ALIBI_META, "damped": DAMPED_META,
             "bad_relative": meta("absolute", "s", True, []),
             "linear_bias": meta("Linear bias", "b(i,j) = −d/4", True, [])}
    for name, cls in {**good, **bad}.items():
        module = cls()
        module.meta = metas.get(name, OK_META)  # the JSON metadata() returns, a str attribute
        torch.jit.script(module).save(os.path.join(out, name + ".pt"))
    with open(os.path.join(out, "not_torchscript.pt"), "wb") as f:
        f.write(b"PK\x03\x04 this is not a TorchScript archive\n")
    print("wrote", len(good) + len(bad) + 1, "files to", out)


if __name__ == "__main__":
    main()
