#include "encodings/rope_like.h"

#include <cmath>

#include "encodings/schedules.h"
#include "util/error.h"

namespace poslab {

JordanLayout ropePairLayout(long long D, const std::vector<double>& theta) {
  const long long pairs = D / 2;
  JordanLayout layout;
  layout.dim = D;
  layout.groups.push_back(makeJordanGroup(/*offset=*/0, /*order=*/1,
                                          std::vector<double>(pairs, 0.0), theta,
                                          std::vector<double>(pairs, 0.0), ShearKind::Linear,
                                          /*L=*/1.0));
  return layout;
}

RopeExtensionEncoding::RopeExtensionEncoding(const FamilyInfo& info, ParamSet params,
                                             std::vector<double> theta, std::vector<double> gamma,
                                             double temperature, Extension extension)
    : RopeLikeEncoding(info, std::move(params), std::move(theta), std::move(gamma), temperature),
      extension_(std::move(extension)) {}

RotaryEncoding::ModelLayout RopeExtensionEncoding::modelLayout(long long positions) const {
  const long long D = headDim();
  const double L = params().get("L");
  // scoreScale() holds the explorer's temperature at the user's s; the model's replaces it.
  const double shown = scoreScale() * std::sqrt(static_cast<double>(D));
  if (static_cast<double>(positions) <= L)
    return {ropePairLayout(D, ropeFrequencies(D, params().get("base"))), 1.0 / shown};
  auto [theta, temperature] = extension_(positions);
  return {ropePairLayout(D, theta), temperature * temperature / shown};
}

RopeLikeEncoding::RopeLikeEncoding(const FamilyInfo& info, ParamSet params,
                                   std::vector<double> theta, std::vector<double> gamma,
                                   double temperature)
    : RotaryEncoding(info, std::move(params)),
      theta_(std::move(theta)),
      gamma_(std::move(gamma)),
      temperature_(temperature) {
  requireHeadDimMultiple(*this, 2, "channels are rotated in pairs");
  const long long pairs = headDim() / 2;
  layout_.dim = headDim();
  layout_.groups.push_back(makeJordanGroup(/*offset=*/0, /*order=*/1, gamma_, theta_,
                                           std::vector<double>(pairs, 0.0), ShearKind::Linear,
                                           /*L=*/1.0));
}

LagBasis RopeLikeEncoding::basis(const std::vector<double>& lags) const {
  LagBasis b;
  b.lags = lags;
  b.kernel.assign(lags.size(), 0.0);
  bool decayed = false;
  for (double g : gamma_) decayed = decayed || g != 0.0;
  const double pairs = static_cast<double>(theta_.size());
  for (size_t c = 0; c < theta_.size(); ++c) {
    std::vector<double> cs(lags.size()), sn(lags.size());
    for (size_t n = 0; n < lags.size(); ++n) {
      const double env = std::exp(-gamma_[c] * lags[n]);
      cs[n] = env * std::cos(theta_[c] * lags[n]);
      sn[n] = env * std::sin(theta_[c] * lags[n]);
      b.kernel[n] += cs[n] / pairs;
    }
    const std::string prefix = decayed ? "exp*" : "";
    b.add(prefix + "cos_" + std::to_string(c), std::move(cs));
    b.add(prefix + "sin_" + std::to_string(c), std::move(sn));
  }
  return b;
}

LagBasis RopeLikeEncoding::probeBasis(const std::vector<double>& lags, double omega) const {
  size_t best = 0;
  for (size_t c = 1; c < theta_.size(); ++c)
    if (std::abs(theta_[c] - omega) < std::abs(theta_[best] - omega)) best = c;
  LagBasis full = RopeLikeEncoding::basis(lags);
  LagBasis b;
  b.lags = lags;
  b.add(full.names[2 * best], full.columns[2 * best]);
  b.add(full.names[2 * best + 1], full.columns[2 * best + 1]);
  return b;
}

double RopeLikeEncoding::scoreScale() const {
  return temperature_ * temperature_ / std::sqrt(static_cast<double>(headDim()));
}

double RopeLikeEncoding::referenceScaledScore(const double* q, const double* k, long long i,
                                              long long j) const {
  const double d = static_cast<double>(i - j);
  double s = 0;
  for (size_t c = 0; c < theta_.size(); ++c) {
    s += referenceJordanBlock(q + 2 * c, k + 2 * c, 1, gamma_[c], theta_[c], 0.0, d);
  }
  return scoreScale() * s;
}

double RopeLikeEncoding::referenceLogit(const double* q, const double* k, long long i, long long j,
                                        long long) const {
  return referenceScaledScore(q, k, i, j);
}

}  // namespace poslab
