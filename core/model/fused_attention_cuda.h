// The CUDA fused causal attention (core/cuda/, built with a CUDA LibTorch only), behind the same
// arguments as fusedCausalAttention, which dispatches to it for CUDA tensors.
//
// It takes the factorized form (s = fq . fk after the family's position transform: RoPE and its
// variants, exact and stabilized Jordan, PoPE, ...) with or without a bias. The bias (ALiBi,
// RoPE + ALiBi, PJ-bias: functions of the lag i - j) enters as a (H, T) lag table built once per
// call from the family's BiasFn at the model's unit-step positions, differentiable in the family's
// parameters. Every other call (the direct form, half precision, sizes past its shared memory)
// returns an undefined tensor, and the caller runs the generic tiled path, whose ATen operations
// run on the GPU as well.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "encodings/trainable.h"

namespace poslab {

// True when this build has PosLab's CUDA kernels (CMake's POSLAB_CUDA: a CUDA LibTorch).
bool cudaAttentionKernelsBuilt();

// Why the CUDA kernel does not take this call, or "" when it does. pos (T) int64; v (B, H, T, hs).
std::string cudaAttentionRefusal(const TrainedScore& score, const at::Tensor& pos,
                                 const at::Tensor& v);

// Softmax attention over j <= i, as fusedCausalAttention (fused_attention.h), on the GPU; an
// undefined tensor where cudaAttentionRefusal is not empty. v (B, H, T, hs) -> (B, H, T, hs).
at::Tensor cudaFusedCausalAttention(const TrainedScore& score, double scale, const at::Tensor& pos,
                                    const at::Tensor& v);

}  // namespace poslab
