#include "encodings/jordan_family.h"

#include <cmath>

#include "encodings/schedules.h"
#include "util/error.h"

namespace poslab {

JordanEncoding::JordanEncoding(const FamilyInfo& info, ParamSet params, JordanSpec spec)
    : RotaryEncoding(info, std::move(params)), spec_(std::move(spec)) {
  learnables_ = spec_.learn;
  const long long blockDims = 2 * spec_.order;
  requireHeadDimMultiple(*this, blockDims,
                         "a block of order " + std::to_string(spec_.order) + " takes " +
                             std::to_string(blockDims) + " reals");
  const long long D = headDim();
  const long long blocks = D / blockDims;
  if (spec_.affineBlocks > blocks) {
    throw InvalidArgument("affine_blocks = " + std::to_string(spec_.affineBlocks) +
                          " exceeds the " + std::to_string(blocks) + " blocks of head_dim " +
                          std::to_string(D));
  }
  const double base = this->params().get("base");
  if (spec_.perBlockSchedule) {
    for (long long b = 0; b < blocks; ++b)
      omega_.push_back(std::pow(base, -static_cast<double>(b) / static_cast<double>(blocks)));
  } else {
    omega_ = blockFrequencies(blocks, D, base);
  }
  if (this->params().has("pin_omega") && this->params().getInt("pin_omega") == 1)
    omega_.assign(omega_.size(), this->params().get("omega"));
  if (spec_.realEigenvalues) omega_.assign(omega_.size(), 0.0);
  gamma_.assign(blocks, spec_.gamma);
  for (long long b = blocks - spec_.affineBlocks; b < blocks; ++b) {
    omega_[b] = 0.0;
    gamma_[b] = 0.0;
  }
  layout_.dim = D;
  layout_.groups.push_back(makeJordanGroup(0, spec_.order, gamma_, omega_,
                                           std::vector<double>(blocks, spec_.shear), spec_.kind,
                                           spec_.L));
}

LagBasis JordanEncoding::basis(const std::vector<double>& lags) const {
  LagBasis b;
  b.lags = lags;
  const double omega = params().has("omega") ? params().get("omega") : omega_.front();
  appendJordanBlockBasis(
      b, spec_.gamma, omega, spec_.viewShear, spec_.order,
      spec_.kind != ShearKind::Linear ? ShearKind::Saturating : ShearKind::Linear, spec_.L,
      spec_.timeName, spec_.viewTimeUnit);
  return b;
}

double JordanEncoding::referenceLogit(const double* q, const double* k, long long i, long long j,
                                      long long) const {
  const double d = static_cast<double>(i - j);
  double t = d;
  if (spec_.kind == ShearKind::Saturating) t = stabilizedTau(d, spec_.L);
  if (spec_.kind == ShearKind::AbsoluteSaturating)
    t = stabilizedTau(static_cast<double>(i), spec_.L) -
        stabilizedTau(static_cast<double>(j), spec_.L);
  const long long blockDims = 2 * spec_.order;
  double s = 0;
  for (size_t b = 0; b < omega_.size(); ++b) {
    s += referenceJordanBlock(q + b * blockDims, k + b * blockDims, spec_.order, gamma_[b],
                              omega_[b], spec_.shear * t, d);
  }
  return s / std::sqrt(static_cast<double>(headDim()));
}

}  // namespace poslab
