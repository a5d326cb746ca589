// The products the fused kernel (fused_attention.h) sums in each tile of logits:
//     s(i, j) = sum_terms (a_i * scale[m]) . b_j * lag[m](i - q0, j - k0),   m = (q0 - k0) / tile,
// for a query tile starting at q0 and a key tile starting at k0 (both multiples of the tile).
// The factorized form is one term without scale or lag. A lag-weighted direct form
// (trainable.h's LagWeightedTerm: w(i - j) sum_f fq fk e^(-decay_f (i - j))) becomes one term per
// LagWeightedTerm, its decay split three ways so that no factor leaves the dtype's range:
//     e^(-decay (i - j)) = e^(-decay (i - q0)) * e^(-decay (q0 - k0)) * e^(decay (j - k0)):
// the first factor goes into a (each query measured from its own tile's start), the last into b,
// and the middle one, which depends only on the tiles' distance m, is the term's scale[m]. The
// lag weight of a tile pair, w(m tile + ii - jj), likewise depends only on m: lag[m].
// The three factors are built here under autograd, so the decay's gradient reaches the family's
// parameters through ordinary autograd; the kernel returns the gradients of a, b and scale.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "encodings/trainable.h"

namespace poslab {

struct TileTerm {
  at::Tensor a, b;   // (B, H, T, F), v's dtype
  at::Tensor scale;  // (nTiles, Hs, 1, F), Hs = 1 or H, v's dtype: e^(-decay m tile); undefined: 1
  at::Tensor lag;    // (nTiles, tile, tile), v's dtype: w(m tile + ii - jj), 0 where negative;
                     // undefined: 1
};

struct TiledTerms {
  std::vector<TileTerm> terms;  // empty: the terms cannot be tiled (see tileLagTerms)
  int64_t tile = 0;             // the tile edge they were split for
};

// A lag-weighted direct form made ready for tiles of at most `tile`. scale multiplies the score
// (it goes into a); pos (T) int64, strictly increasing; dtype: v's. The tile shrinks (to a
// multiple of 16) until e^(decay (tile - 1)) stays far inside dtype's range; empty when that
// needs a tile under 16 (and under `tile`), when the positions are not consecutive, or when
// there are no terms: the caller then runs the direct form itself.
TiledTerms tileLagTerms(const std::vector<LagWeightedTerm>& terms, double scale,
                        const at::Tensor& pos, at::ScalarType dtype, int64_t tile);

}  // namespace poslab
