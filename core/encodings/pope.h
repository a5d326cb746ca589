// PoPE's per-position transform (docs/MATH.md 1.9), shared by the family and the trainable module.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace poslab {

// theta_c = base^(-c/D), c = 0..D-1.
std::vector<double> popeFrequencies(long long D, double base);

// x (B, H, T, D) -> (B, H, T, 2D) = [mu cos(p theta + delta), mu sin(p theta + delta)],
// mu = softplus(x); delta (H, D) is added on keys only (pass an undefined tensor for queries).
at::Tensor popeTransform(const at::Tensor& x, const at::Tensor& pos,
                         const std::vector<double>& theta, const at::Tensor& delta);

}  // namespace poslab
