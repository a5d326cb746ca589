#include "analysis/final_query_attention.h"

#include <ATen/ATen.h>

#include <cmath>

#include "util/error.h"

namespace poslab {

void FinalQueryAttentionSums::add(const FinalQueryAttentionSums& other) {
  entropy += other.entropy;
  support += other.support;
  rows += other.rows;
}

double FinalQueryAttentionSums::meanEntropy() const {
  return rows > 0 ? entropy / rows : NAN;
}

double FinalQueryAttentionSums::meanSupport() const {
  return rows > 0 ? support / rows : NAN;
}

FinalQueryAttentionSums finalQueryAttentionSums(const at::Tensor& weights) {
  if (weights.dim() != 4 || weights.size(2) != weights.size(3) || weights.size(3) < 2)
    throw InvalidArgument("final-query attention needs (B, H, T, T) weights with T >= 2");
  const int64_t T = weights.size(3);
  at::Tensor p = weights.select(2, T - 1).slice(-1, 0, T - 1).to(at::kDouble);  // (B, H, T-1)
  p = p / p.sum(-1, true).clamp_min(std::numeric_limits<double>::min());
  at::Tensor h = -(p * p.clamp_min(std::numeric_limits<double>::min()).log()).sum(-1);  // (B, H)
  FinalQueryAttentionSums out;
  out.entropy = h.sum().item<double>();
  out.support = h.exp().sum().item<double>();
  out.rows = static_cast<double>(h.numel());
  return out;
}

DistributionSpread distributionSpread(const std::vector<double>& p, size_t first) {
  double h = 0;
  for (size_t i = first; i < p.size(); ++i)
    if (p[i] > 0) h -= p[i] * std::log(p[i]);
  return {h, std::exp(h)};
}

}  // namespace poslab
