// Fused causal attention (the FlashAttention algorithm on the CPU), for training and evaluation.
//
// Forward: for each tile of queries, the key tiles up to the diagonal with an online softmax;
// only the output O and the row log-sum-exp are kept. Backward: every tile's logits and weights
// are computed again (FlashAttention-2: dS = P * (dP - rowsum(dO * O))), so neither pass holds a
// (T, T) tensor per batch and head; memory is O(T * tile). Work is spread over the batch on the
// intra-op threads (util/parallel_for.h; in a build with OpenMP, core/CMakeLists.txt), each
// thread running its own single-threaded BLAS products.
//
// The positional structure enters per tile through the family's TrainedScore (trainable.h):
//   factorized (fq, fk): the tile's scores are one product fq_tile . fk_tile^T; the gradients of
//     fq and fk are written by hand and flow on to q, k and the position parameters through
//     ordinary autograd outside this function;
//   bias (qPos, kPos) -> (H, qn, kn): added per tile; when it depends on learned parameters, the
//     backward evaluates the tile's bias again under autograd and calls torch::autograd::grad
//     with sum_b dS as its gradient;
//   lag-weighted direct form (TrainedScore::lagTerms): each term is a product per tile with a
//     per-feature scale and a lag weight that depend only on the tiles' distance
//     (model/tile_terms.h); the backward is written by hand, as for the factorized form, and
//     autograd carries the terms' gradients on to q, k and the decay. The relative-shear Jordan
//     families and every rotary family forced into its direct form take this path;
//   direct (q0, qn, k0, kn) -> (B, H, qn, kn), for what has no lag-weighted form (the jet mix,
//     the absolute shear, a decay too fast for a tile of 16): the backward evaluates the tile's
//     scores again under autograd and back-propagates dS into q, k and the position
//     parameters, one query tile row at a time.
// The slow reference is causalAttention (transformer.h) on the family's BlockScorer.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "encodings/trainable.h"
#include "model/attention_path.h"

namespace poslab {

// Tile edge (queries and keys) of the fused kernel when the caller gives none. A (H, tile, tile)
// float32 tile of one batch element is 256 KB at H = 4: it stays in a core's L2 cache.
constexpr int64_t kFusedAttentionTile = 128;

// Softmax attention over j <= i from a family's scores.
//   score: the family's TrainedScore for these q, k and positions (factorized or direct, bias);
//   scale: the family's score scale (multiplies s, not the bias), folded into fq when factorized;
//   pos (T) int64, strictly increasing (the model's arange);
//   v (B, H, T, hs);
//   q, k (B, H, T, hs): the tensors the direct form was built from (their gradients come from
//     re-running it); unused for the factorized form;
//   params: the position parameters the direct form or the bias may depend on (those that do
//     not require grad are skipped);
//   tile: query and key tile edge (>= 1);
//   path: kFusedDirect skips the lag-weighted form, kSdpa sends the plain dot-product families to
//     LibTorch's kernel where it has one; kFused and kReference run this kernel as it is (the
//     reference path is the caller's choice: model/transformer.h).
// Returns (B, H, T, hs). Differentiable when grad mode is on and any input requires grad.
at::Tensor fusedCausalAttention(const TrainedScore& score, double scale, const at::Tensor& pos,
                                const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                const std::vector<at::Tensor>& params,
                                int64_t tile = kFusedAttentionTile,
                                AttentionPath path = AttentionPath::kFused);

}  // namespace poslab
