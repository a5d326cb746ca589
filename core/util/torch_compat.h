// Every difference between the LibTorch versions PosLab builds against (Debian's 1.13 and PyPI's
// 2.x), in one place. Code elsewhere uses these names, never a version check of its own.
#pragma once

#include <torch/version.h>

#include <string>

#include <ATen/core/Tensor.h>
#include <c10/util/string_utils.h>

namespace c10d {
class ProcessGroup;
class Backend;
}  // namespace c10d

namespace poslab::compat {

// LibTorch 2.0 or later.
inline constexpr bool kTorch2 = TORCH_VERSION_MAJOR >= 2;

// What c10d::ProcessGroupGloo and ProcessGroupNCCL derive from, so what one collectives handle
// holds: c10d::ProcessGroup in 1.13, c10d::Backend in 2.x (where ProcessGroup wraps backends).
#if TORCH_VERSION_MAJOR >= 2
using CollectiveBackend = c10d::Backend;
#else
using CollectiveBackend = c10d::ProcessGroup;
#endif

// The key of a parameter in torch::optim::Optimizer::state(): its TensorImpl's address as a
// string in 1.13, the address itself (void*) in 2.x.
inline auto optimizerStateKey(const at::Tensor& param) {
#if TORCH_VERSION_MAJOR >= 2
  return static_cast<void*>(param.unsafeGetTensorImpl());
#else
  return c10::guts::to_string(param.unsafeGetTensorImpl());
#endif
}

// at::scaled_dot_product_attention with a causal mask and an explicit scale (LibTorch 2.1+).
inline constexpr bool kHasScaledDotProductAttention = TORCH_VERSION_MAJOR > 2 ||
                                                      (TORCH_VERSION_MAJOR == 2 &&
                                                       TORCH_VERSION_MINOR >= 1);

// Causal softmax(scale * q k^T) v through at::scaled_dot_product_attention: q, k (B, H, T, F),
// v (B, H, T, hs) -> (B, H, T, hs), differentiable. Throws std::logic_error where
// kHasScaledDotProductAttention is false.
at::Tensor causalScaledDotProductAttention(const at::Tensor& q, const at::Tensor& k,
                                           const at::Tensor& v, double scale);

}  // namespace poslab::compat
