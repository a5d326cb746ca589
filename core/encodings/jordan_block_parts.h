// The pieces of the Jordan-block engine (jordan_blocks.h) that its two direct forms share: the
// per-block score tensors (jordan_blocks.cpp) and the lag-weighted terms of the fused kernel
// (jordan_lag_terms.cpp). Internal to core/encodings.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <utility>

#include "encodings/jordan_blocks.h"

namespace poslab::jordan_parts {

// A per-block coefficient as (Hg, nb): Hg = 1 when shared by every head, else one row per head.
at::Tensor perHead(const at::Tensor& t);

// Throws unless the group's per-head tensors fit q's H heads.
void requireHeads(const JordanGroup& g, int64_t heads);

// Complex multiply of (re, im) by (c, s), broadcasting; re and im become new tensors.
void complexMul(at::Tensor& re, at::Tensor& im, const at::Tensor& c, const at::Tensor& s);

// Splits x's group dims into (re, im), each (B, H, T, nb, m).
std::pair<at::Tensor, at::Tensor> splitGroup(const JordanGroup& g, const at::Tensor& x);

// Rotates every component of the group by the unit phase e^(-i omega p): x (B, H, T, D),
// pos (T) int64 -> (re, im) (B, H, T, nb, m) in x's dtype.
std::pair<at::Tensor, at::Tensor> rotateUnit(const JordanGroup& g, const at::Tensor& x,
                                             const at::Tensor& pos);

double factorial(long long r);

}  // namespace poslab::jordan_parts
