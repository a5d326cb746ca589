#include "encodings/encoding.h"

#include <ATen/ATen.h>

#include <cmath>

#include "util/error.h"

namespace poslab {

std::vector<double> lagRange(long long first, long long last) {
  if (first < 0 || last <= first) {
    throw InvalidArgument(
        "lag range " + std::to_string(first) + ":" + std::to_string(last) + " is empty or negative",
        "give A:B with 0 <= A < B, e.g. 0:512");
  }
  constexpr long long kMaxLags = 1LL << 24;  // 16M lags x 8 bytes per column is already 128 MiB
  if (last - first > kMaxLags) {
    throw InvalidArgument("lag range of " + std::to_string(last - first) + " lags is too long",
                          "at most " + std::to_string(kMaxLags));
  }
  std::vector<double> lags;
  lags.reserve(static_cast<size_t>(last - first));
  for (long long d = first; d < last; ++d) lags.push_back(static_cast<double>(d));
  return lags;
}

FactorizedQK Encoding::factorize(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                 const at::Tensor&) const {
  throw Error("family " + id() + " has no factorized form (it breaks the group law)",
              "use the direct form");
}

PrecisionReport Encoding::factorizedPrecision(long long, bool) const {
  return {};
}

at::Tensor Encoding::bias(long long, const at::Tensor&, const at::Tensor&, at::ScalarType) const {
  return {};
}

double Encoding::scoreScale() const {
  return 1.0 / std::sqrt(static_cast<double>(headDim()));
}

BiasFn Encoding::biasFn(long long numHeads) const {
  return [this, numHeads](const at::Tensor& qPos, const at::Tensor& kPos, at::ScalarType dtype) {
    return bias(numHeads, qPos, kPos, dtype);
  };
}

at::Tensor attentionLogits(const Encoding& enc, const at::Tensor& q, const at::Tensor& k,
                           const at::Tensor& qPos, const at::Tensor& kPos, Form form,
                           long long chunk) {
  if (q.dim() != 4 || k.dim() != 4 || q.size(-1) != enc.headDim() || k.size(-1) != q.size(-1)) {
    throw InvalidArgument("q and k must be (B, H, T, " + std::to_string(enc.headDim()) +
                          ") for family " + enc.id());
  }
  if (qPos.numel() != q.size(2) || kPos.numel() != k.size(2)) {
    throw InvalidArgument("position vectors do not match the sequence lengths of q and k");
  }
  if (chunk <= 0) throw InvalidArgument("chunk must be positive");
  const long long numHeads = q.size(1);
  const long long tk = k.size(2);
  at::Tensor out = at::empty({q.size(0), numHeads, q.size(2), tk}, q.options());
  const BiasFn bias = enc.biasFn(numHeads);

  FactorizedQK fact;
  if (form == Form::Factorized) fact = enc.factorize(q, k, qPos, kPos);

  for (long long start = 0; start < tk; start += chunk) {
    const long long n = std::min(chunk, tk - start);
    at::Tensor kc = k.narrow(2, start, n);
    at::Tensor pc = kPos.narrow(0, start, n);
    at::Tensor s = form == Form::Factorized
                       ? at::matmul(fact.q, fact.k.narrow(2, start, n).transpose(-1, -2))
                       : enc.directScores(q, kc, qPos, pc);
    out.narrow(3, start, n).copy_(finishLogits(s, enc.scoreScale(), bias, qPos, pc));
  }
  return out;
}

}  // namespace poslab
