#!/usr/bin/python3
"""RoPE with a learnable decay per head, as a PosLab family (docs/ENCODINGS.md).

    s(i,j) = Σ_c e^{−γ_h d} Re( q̄_c k_c e^{iθ_c d} ),  θ_c = base^{−2c/D},  d = i − j

Writes rope_decay.pt (or the path given):  /usr/bin/python3 rope_decay.py [OUT.pt]
Then:  poslab-cli kernel --family file:rope_decay.pt --set gamma=0.01
"""
import json
import sys
from typing import Tuple

import torch
from torch import Tensor

METADATA = json.dumps({
    "title": "RoPE with a learned decay",
    "formula": "s(i,j) = Σ_c e^{−γ_h d} Re( q̄_c k_c e^{iθ_c d} ),  θ_c = base^{−2c/D}",
    "summary": "RoPE's rotation with an envelope e^{−γ_h d}; each head learns its own γ_h.",
    "relative": True,
    "params": [
        {"name": "gamma", "symbol": "γ", "min": 0.0, "max": 1.0, "default": 0.01,
         "learned": True, "per_head": True, "description": "decay rate per head"},
        {"name": "base", "symbol": "base", "min": 2.0, "max": 1e6, "default": 10000.0,
         "learned": False, "description": "θ_c = base^(−2c/D)"},
    ],
})


def rotate(x: Tensor, angle: Tensor) -> Tensor:
    """Channel pairs (2c, 2c+1) of x (B, H, T, D) as complex numbers, times e^{−i angle} (T, D/2)."""
    re, im = x[..., 0::2], x[..., 1::2]
    c, s = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    return torch.stack((re * c + im * s, im * c - re * s), dim=-1).flatten(-2)


class RopeDecay(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.meta = METADATA
        self.base = 10000.0
        self.gamma = torch.nn.Parameter(torch.full((4, 1), 0.01))  # (H, 1); PosLab sizes H
        self.head_dim = 16  # PosLab sets the model's D (kernel() is not given it)

    def angles(self, pos: Tensor, D: int) -> Tensor:  # (T, D/2) float64
        c = torch.arange(0, D // 2, dtype=torch.float64)
        theta = torch.pow(torch.tensor(self.base, dtype=torch.float64), -2.0 * c / D)
        return pos.to(torch.float64)[:, None] * theta

    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def factorize(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tuple[Tensor, Tensor]:
        # e^{−γ d} = e^{−γ i} e^{γ j}: the query side decays, the key side grows (PosLab falls
        # back to scores() where that leaves the float range).
        D = q.size(-1)
        gq = torch.exp(-self.gamma[:, :, None] * q_pos.to(torch.float64)[None, :, None])
        gk = torch.exp(self.gamma[:, :, None] * k_pos.to(torch.float64)[None, :, None])
        return (rotate(q, self.angles(q_pos, D)) * gq.to(q.dtype),
                rotate(k, self.angles(k_pos, D)) * gk.to(k.dtype))

    @torch.jit.export
    def scores(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        D = q.size(-1)
        s = rotate(q, self.angles(q_pos, D)) @ rotate(k, self.angles(k_pos, D)).transpose(-1, -2)
        d = (q_pos[:, None] - k_pos[None, :]).clamp(min=0).to(torch.float64)  # (Tq, Tk)
        return s * torch.exp(-self.gamma[:, :, None] * d[None]).to(q.dtype)   # (B, H, Tq, Tk)

    @torch.jit.export
    def kernel(self, lags: Tensor) -> Tensor:  # (H, N): the score of unit content
        D = self.head_dim
        c = torch.arange(0, D // 2, dtype=torch.float64)
        theta = torch.pow(torch.tensor(self.base, dtype=torch.float64), -2.0 * c / D)
        rot = torch.cos(lags[None, :] * theta[:, None]).mean(0)
        return torch.exp(-self.gamma * lags[None, :]) * rot[None, :]


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "rope_decay.pt"
    torch.jit.script(RopeDecay()).save(out)
    print("wrote", out)
