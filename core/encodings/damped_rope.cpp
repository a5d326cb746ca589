// Damped RoPE (MATH 1.5): RoPE with a decay, per pair the complex factor e^((-gamma + i omega) d):
//     s(i,j) = sum_c e^(-gamma d) Re( conj(q_c) k_c e^(i omega_c d) ).
// The semisimple baseline of the Jordan family (eta = 0). Kernel basis
// {1, e^(-gamma d) cos(omega d), e^(-gamma d) sin(omega d)}.
#include <cmath>

#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"

namespace poslab {

namespace {
class DampedRope : public RopeLikeEncoding {
 public:
  DampedRope(const FamilyInfo& info, ParamSet p, std::vector<double> theta,
             std::vector<double> gamma)
      : RopeLikeEncoding(info, std::move(p), std::move(theta), std::move(gamma)) {
    learnables_.gammaGroup = 0;  // the model learns every pair's decay
  }
  LagBasis basis(const std::vector<double>& lags) const override {
    LagBasis b;
    b.lags = lags;
    b.add("1", std::vector<double>(lags.size(), 1.0));
    appendJordanBlockBasis(b, params().get("gamma"), params().get("omega"), /*shear=*/0.0,
                           /*order=*/1, ShearKind::Linear, /*L=*/1.0, "d");
    return b;
  }
  // Damped RoPE's probe basis is its single-block kernel view at the user's omega.
  LagBasis probeBasis(const std::vector<double>& lags, double) const override {
    return basis(lags);
  }
};
}  // namespace

const FamilyInfo& DampedRopeInfo() {
  static const FamilyInfo info{
      "damped-rope",
      "Damped RoPE",
      "s(i,j) = Σ_c e^{−γd} Re( q̄_c k_c e^{iω_c d} )",
      "RoPE with an exponential decay per pair: a complex eigenvalue λ = −γ + iω off the unit "
      "circle. The semisimple (η = 0) member of the Jordan family: phase and decay, but no "
      "distance-times-phase term.",
      {common::gamma(), common::omega(), common::pinOmega(), common::base(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeDampedRope(ParamSet p) {
  const long long D = p.getInt("head_dim");
  std::vector<double> theta = ropeFrequencies(D, p.get("base"));
  if (p.getInt("pin_omega") == 1) theta.assign(theta.size(), p.get("omega"));
  std::vector<double> gamma(theta.size(), p.get("gamma"));
  return std::make_unique<DampedRope>(DampedRopeInfo(), std::move(p), theta, gamma);
}

}  // namespace poslab
