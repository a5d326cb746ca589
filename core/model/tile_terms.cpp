#include "model/tile_terms.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

namespace poslab {

namespace {

// The largest exponent one side of a split decay may carry: e^(bound) times a feature stays
// finite in the dtype, and so does the product of both sides on a tile's masked entries (j > i),
// where the exponents add up.
double splitDecayBound(at::ScalarType dtype) {
  if (dtype == at::kDouble) return 300.0;
  if (dtype == at::kFloat) return 30.0;
  return 4.0;  // half precision
}

// Below e^(-cut) a tile pair's decay is set to 0 (its weight is under 1e-34 in float32): no
// subnormal numbers in the products.
double underflowCut(at::ScalarType dtype) {
  return dtype == at::kDouble ? 700.0 : 78.0;
}

constexpr int64_t kTileStep = 16;

}  // namespace

TiledTerms tileLagTerms(const std::vector<LagWeightedTerm>& terms, double scale,
                        const at::Tensor& pos, at::ScalarType dtype, int64_t tile) {
  const int64_t T = pos.numel();
  if (terms.empty() || T == 0) return {};
  if (T > 1 && (pos[T - 1] - pos[0]).item<int64_t>() != T - 1) return {};  // not consecutive

  // Terms whose decay is 0 and not learned need no split at all.
  double maxDecay = 0;
  std::vector<bool> decayed;
  for (const auto& t : terms) {
    const bool has =
        t.decay.defined() && (t.decay.requires_grad() || t.decay.ne(0).any().item<bool>());
    decayed.push_back(has);
    if (has) maxDecay = std::max(maxDecay, t.decay.detach().max().item<double>());
  }
  const double bound = splitDecayBound(dtype);
  int64_t edge = tile;
  if (maxDecay * static_cast<double>(edge - 1) > bound) {
    edge = static_cast<int64_t>(std::floor(bound / maxDecay)) + 1;
    edge = edge / kTileStep * kTileStep;
    if (edge < std::min(tile, kTileStep)) return {};
    edge = std::min(edge, tile);
  }

  const auto device = pos.device();
  const auto f64 = at::TensorOptions().dtype(at::kDouble).device(device);
  const int64_t nTiles = (T + edge - 1) / edge;
  at::Tensor offset = at::arange(T, f64).remainder(static_cast<double>(edge));  // i - q0(i)
  at::Tensor tileStart = at::arange(nTiles, f64) * static_cast<double>(edge);   // m tile
  TiledTerms out;
  out.tile = edge;
  for (size_t n = 0; n < terms.size(); ++n) {
    const LagWeightedTerm& t = terms[n];
    TileTerm term;
    term.a = (scale == 1.0 ? t.fq : t.fq * scale).to(dtype);
    term.b = t.fk.to(dtype);
    if (decayed[n]) {
      at::Tensor decay = t.decay.to(device).unsqueeze(1);        // (Hs, 1, F) float64
      at::Tensor dq = at::exp(-offset.view({1, T, 1}) * decay);  // (Hs, T, F)
      at::Tensor dk = at::exp(offset.view({1, T, 1}) * decay);
      term.a = term.a * dq.to(dtype).unsqueeze(0);
      term.b = term.b * dk.to(dtype).unsqueeze(0);
      at::Tensor exponent =
          tileStart.view({nTiles, 1, 1, 1}) * decay.unsqueeze(0);  // (nT, Hs, 1, F)
      term.scale =
          at::where(exponent > underflowCut(dtype), at::zeros_like(exponent), at::exp(-exponent))
              .to(dtype);
    }
    if (t.lag.defined()) {
      const auto i64 = at::TensorOptions().dtype(at::kLong).device(device);
      at::Tensor ii = at::arange(edge, i64);
      at::Tensor lagIndex = (at::arange(nTiles, i64) * edge).view({nTiles, 1, 1}) +
                            (ii.view({1, edge, 1}) - ii.view({1, 1, edge}));  // (nT, tile, tile)
      at::Tensor valid = (lagIndex >= 0).logical_and(lagIndex < T);
      at::Tensor w = t.lag.to(device).detach().index({lagIndex.clamp(0, T - 1)});
      term.lag = at::where(valid, w, at::zeros_like(w)).to(dtype);
    }
    out.terms.push_back(std::move(term));
  }
  return out;
}

}  // namespace poslab
