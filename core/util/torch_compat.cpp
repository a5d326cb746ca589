#include "util/torch_compat.h"

#include <ATen/ATen.h>

#include <stdexcept>

namespace poslab::compat {

at::Tensor causalScaledDotProductAttention(const at::Tensor& q, const at::Tensor& k,
                                           const at::Tensor& v, double scale) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0,
                                          /*is_causal=*/true, /*scale=*/scale);
#else
  throw std::logic_error("at::scaled_dot_product_attention needs LibTorch 2.1 or later (this is " +
                         std::string(TORCH_VERSION) + ")");
#endif
}

}  // namespace poslab::compat
