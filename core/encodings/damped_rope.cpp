// Damped RoPE (MATH 1.5) as the reference code trains it: complex Jordan blocks of order 2 with no
// shear (eta = 0), so every block is the complex factor e^((-gamma_b + i omega_b) d) on its two
// components:
//     s(i,j) = sum_b e^(-gamma_b d) Re( (conj(q_b0) k_b0 + conj(q_b1) k_b1) e^(i omega_b d) ),
// D/4 blocks at omega_b = base^(-2b/D), b < D/4 (the upper, fast half of RoPE's spectrum), and
// the model learns one gamma per head and block. The semisimple baseline of the Jordan family.
// Kernel basis {1, e^(-gamma d) cos(omega d), e^(-gamma d) sin(omega d)}.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

namespace {
class DampedRope : public JordanEncoding {
 public:
  using JordanEncoding::JordanEncoding;
  // One block's kernel view at the user's (gamma, omega): no shear term (eta = 0).
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
      "s(i,j) = Σ_b e^{−γ_b d} Re( q_b^H k_b e^{iω_b d} ),  ω_b = base^{−2b/D}, b < D/4",
      "RoPE with an exponential decay per block: a complex eigenvalue λ = −γ + iω off the unit "
      "circle, on blocks of two complex dims (the reference's order-2 blocks with η = 0, so the "
      "D/4 frequencies are the fast half of RoPE's). The semisimple (η = 0) member of the Jordan "
      "family: phase and decay, but no distance-times-phase term.",
      {common::gamma(), common::omega(), common::pinOmega(), common::base(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeDampedRope(ParamSet p) {
  JordanSpec spec;
  spec.order = 2;
  spec.kind = ShearKind::Linear;
  spec.gamma = p.get("gamma");
  spec.shear = spec.viewShear = 0.0;
  spec.timeName = "d";
  // The model learns gamma per head and block; eta stays 0 (the reference's force_zero_eta).
  spec.learn = {/*gammaGroup=*/0, /*etaGroup=*/-1, /*etaMax=*/0.1, /*shearPerL=*/false};
  return std::make_unique<DampedRope>(DampedRopeInfo(), std::move(p), spec);
}

}  // namespace poslab
