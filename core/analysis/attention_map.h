// Positional attention maps: softmax over j <= i of the logits l(i, j), for one head.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "encodings/encoding.h"

namespace poslab {

struct AttentionMap {
  long long T = 0;
  long long head = 0;           // 0-based
  std::vector<double> weights;  // T x T row-major; row i sums to 1 over j <= i, 0 above
  std::vector<double> logits;   // T x T row-major; -inf above the diagonal

  // max |l(i, j) - l(i+1, j+1)| over causal pairs: 0 (to rounding) for a relative family.
  double toeplitzDeviation() const;
};

// Bytes a T x T map of `heads` heads (weights and logits) takes in float64; throws InvalidArgument
// naming T when it exceeds the budget (default 2 GiB).
void checkMapFits(long long T, long long heads, double budgetBytes = 2.0 * (1LL << 30));

// Content-free probe: q = k = the all-ones vector at every position, so the map shows the
// position signal alone (Toeplitz for a relative family). Direct form, float64.
AttentionMap positionalAttentionMap(const Encoding& enc, long long T, long long head);

// With given content: q, k (1, H, T, D); positions 0..T-1.
AttentionMap attentionMapFor(const Encoding& enc, const at::Tensor& q, const at::Tensor& k,
                             long long head);

}  // namespace poslab
