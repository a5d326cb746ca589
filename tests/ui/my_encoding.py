#!/usr/bin/python3
"""What a user writes for issue 32's walkthrough: RoPE whose frequencies turn at a learned speed
per head, s(i,j) = sum_c Re(conj(q_c) k_c e^{i v_h theta_c d}). Usage: my_encoding.py OUT.pt"""
import json, sys
from typing import Tuple
import torch
from torch import Tensor

class SpeedRope(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.speed = torch.nn.Parameter(torch.ones(4, 1))  # (H, 1): PosLab sizes it to the heads
        self.base, self.head_dim = 10000.0, 16
        self.meta = json.dumps({"title": "Speed RoPE", "relative": True,
            "formula": "s(i,j) = Σ_c Re( q̄_c k_c e^{i v_h θ_c d} ),  θ_c = base^{−2c/D}",
            "params": [{"name": "speed", "symbol": "v", "min": 0.1, "max": 4.0, "default": 1.0,
                        "learned": True, "per_head": True},
                       {"name": "base", "symbol": "base", "min": 2.0, "max": 1e6,
                        "default": 10000.0, "learned": False}]})

    def angle(self, pos: Tensor, D: int) -> Tensor:  # (H, T, D/2)
        c = torch.arange(D // 2, dtype=torch.float64)
        theta = torch.pow(torch.tensor(self.base, dtype=torch.float64), -2.0 * c / D)
        return self.speed[:, :, None] * pos.to(torch.float64)[None, :, None] * theta

    def turn(self, x: Tensor, pos: Tensor) -> Tensor:  # x (B, H, T, D): pairs times e^{-i angle}
        a = self.angle(pos, x.size(-1))
        c, s, re, im = torch.cos(a).to(x.dtype), torch.sin(a).to(x.dtype), x[..., 0::2], x[..., 1::2]
        return torch.stack((re * c + im * s, im * c - re * s), dim=-1).flatten(-2)

    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def factorize(self, q: Tensor, k: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tuple[Tensor, Tensor]:
        return self.turn(q, q_pos), self.turn(k, k_pos)

    @torch.jit.export
    def kernel(self, lags: Tensor) -> Tensor:  # K(d) per head, (H, N)
        return torch.cos(self.angle(lags, self.head_dim)).mean(-1)

torch.jit.script(SpeedRope()).save(sys.argv[1])
