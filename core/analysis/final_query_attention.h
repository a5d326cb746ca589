// How spread out the last query's attention is, as the PJ-RoPE reference's sector-teacher
// evaluation reports it (docs/MATH.md 3.4.1): the weights of the final position (the QUERY token)
// over the keys before it, renormalised, their entropy H and effective support exp(H), and the same
// two numbers for the teacher's own attention softmax(lambda K(d)), so that a trained model's
// spread can be read against the teacher's.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace poslab {

// Sums over the (batch, head) rows of one weights tensor, so that batches of any size accumulate
// into one mean.
struct FinalQueryAttentionSums {
  double entropy = 0;  // sum over rows of H = -sum_j p_j log p_j (nats)
  double support = 0;  // sum over rows of exp(H)
  double rows = 0;     // the number of (batch, head) rows summed
  void add(const FinalQueryAttentionSums& other);
  double meanEntropy() const;  // NaN for no rows
  double meanSupport() const;  // NaN for no rows
};

// weights (B, H, T, T), T >= 2: the rows of the last query, p = w[:, :, T-1, :T-1] / its sum (the
// query's own weight dropped, as the reference does), with p log p = 0 where p underflows.
// Float64 arithmetic whatever the input dtype.
FinalQueryAttentionSums finalQueryAttentionSums(const at::Tensor& weights);

struct DistributionSpread {
  double entropy = 0;  // nats
  double support = 0;  // exp(entropy)
};
// p[first..] (non-negative, summing to 1; index below `first` ignored): its entropy and exp of it.
DistributionSpread distributionSpread(const std::vector<double>& p, size_t first = 0);

}  // namespace poslab
