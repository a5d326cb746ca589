#!/usr/bin/python3
"""A bias-only family: ALiBi with a learned scale per head, as a PosLab family (docs/ENCODINGS.md).

    s(i,j) = q · k,   b_h(i,j) = −e^{a_h} m_h d,   m_h = 2^{−8h/H}  (H a power of two)

At a_h = 0 it is ALiBi; each head learns how far it looks. No factorize or scores: the score is
the plain content product. Writes alibi_scaled.pt (or the path given).
"""
import json
import sys

import torch
from torch import Tensor

METADATA = json.dumps({
    "title": "ALiBi with learned slopes",
    "formula": "b_h(i,j) = −e^{a_h} m_h d,  m_h = 2^{−8h/H}",
    "summary": "ALiBi's linear bias; each head scales its slope by e^{a_h}, learned.",
    "relative": True,
    "params": [
        {"name": "log_scale", "symbol": "a", "min": -5.0, "max": 5.0, "default": 0.0,
         "learned": True, "per_head": True, "description": "log of the slope's scale per head"},
    ],
})


class AlibiScaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.meta = METADATA
        self.log_scale = torch.nn.Parameter(torch.zeros(4))  # (H); PosLab sizes H

    def slopes(self, heads: int) -> Tensor:  # (H) float64
        h = torch.arange(1, heads + 1, dtype=torch.float64)
        return torch.pow(2.0, -8.0 * h / heads) * torch.exp(self.log_scale.to(torch.float64))

    @torch.jit.export
    def metadata(self) -> str:
        return self.meta

    @torch.jit.export
    def bias(self, q_pos: Tensor, k_pos: Tensor, heads: int) -> Tensor:  # (H, Tq, Tk)
        d = (q_pos[:, None] - k_pos[None, :]).clamp(min=0).to(torch.float64)
        return -self.slopes(heads)[:, None, None] * d[None]

    @torch.jit.export
    def kernel(self, lags: Tensor) -> Tensor:  # (H, N)
        return -self.slopes(self.log_scale.size(0))[:, None] * lags[None, :]


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "alibi_scaled.pt"
    torch.jit.script(AlibiScaled()).save(out)
    print("wrote", out)
