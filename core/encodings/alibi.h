// ALiBi's bias (docs/MATH.md 1.3), shared by the alibi and rope-alibi families.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "encodings/lag_basis.h"

namespace poslab {

// b_h(i,j) = -m_h (i - j) for j <= i, else 0: (H, Tq, Tk) in dtype. Throws if numHeads != slopes.
at::Tensor alibiBias(const std::vector<double>& slopes, long long numHeads, const at::Tensor& qPos,
                     const at::Tensor& kPos, at::ScalarType dtype, const std::string& family);

// Appends one column "bias_h<n>" = -m_h d per head and sets the kernel to head `head` (0-based).
void appendAlibiBasis(LagBasis& basis, const std::vector<double>& slopes, long long head);

// A rotary basis plus ALiBi's (rope-alibi, rope-ntk-affine): the bias columns, then `rotary`'s;
// the kernel is the rotary kernel plus head `head`'s bias.
LagBasis rotaryPlusAlibiBasis(const LagBasis& rotary, const std::vector<double>& slopes,
                              long long head);

}  // namespace poslab
