// PosLab's CUDA fused causal attention kernels (FlashAttention with an online softmax, tiles in
// shared memory) on raw device pointers, for the factorized form with an optional lag bias:
//   s_ij = a_i . b_j + lag[h, i - j]   (j <= i; a = scale * fq, b = fk of the family's
//   TrainedScore) O_i  = sum_j softmax_j(s_ij) v_j,   lse_i = log sum_j exp(s_ij)
// Backward (FlashAttention-2): P = exp(s - lse), dP = dO v^T, dS = P * (dP - rowsum(dO * O)),
//   dA = dS b, dB = dS^T a, dV = P^T dO, dLag[h, d] = sum over (batch, i - j = d) of dS.
// The autograd function and its dispatch are in fused_attention_cuda.cpp; the float64 CPU
// reference is causalAttention on the family's BlockScorer (tests/core/test_fused_attention_cuda).
// Only built with a CUDA LibTorch (POSLAB_CUDA in CMakeLists.txt).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace poslab::cuda {

// One call's sizes; every tensor is contiguous, row-major.
struct AttentionShape {
  int64_t batch = 0;     // B
  int64_t heads = 0;     // H
  int64_t length = 0;    // T (queries = keys)
  int64_t features = 0;  // F of a and b
  int64_t headSize = 0;  // hs of v
};

// The tile edge the kernels use for these sizes and element size (4: float, 8: double): the
// largest of 32, 16, 8 whose shared memory fits 48 KB in every kernel; 0 when none does (the
// caller then takes the generic path).
int fusedAttentionTile(const AttentionShape& shape, int elementBytes);

// a, b (B, H, T, F); v (B, H, T, hs); lag (H, T) or null (no bias); out (B, H, T, hs) and
// lse (B, H, T) are written. Runs on `stream`; throws std::runtime_error on a launch error.
template <typename Scalar>
void fusedAttentionForward(const AttentionShape& shape, int tile, const Scalar* a, const Scalar* b,
                           const Scalar* v, const Scalar* lag, Scalar* out, Scalar* lse,
                           cudaStream_t stream);

// rowDot (B, H, T) = rowsum(dO * O); dO (B, H, T, hs). Writes dA, dB (B, H, T, F), dV
// (B, H, T, hs) and adds into dLag (H, T) when lag is given (dLag zeroed by the caller).
template <typename Scalar>
void fusedAttentionBackward(const AttentionShape& shape, int tile, const Scalar* a, const Scalar* b,
                            const Scalar* v, const Scalar* lag, const Scalar* lse,
                            const Scalar* rowDot, const Scalar* dOut, Scalar* dA, Scalar* dB,
                            Scalar* dV, Scalar* dLag, cudaStream_t stream);

}  // namespace poslab::cuda
