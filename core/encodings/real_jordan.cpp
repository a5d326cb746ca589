// Real Jordan (MATH 1.7.10): the reference code's real_jordan method, JordanRoPE with every block's
// frequency forced to 0 (force_zero_omega). Order-2 blocks of a real eigenvalue lambda = -gamma
// with the bounded absolute shear of jordan-stabilized-abs:
//     s_b = Re( q_b^H e^(-gamma d) (I + eta (tau(i) - tau(j)) N) k_b ),  tau(p) = p / (1 + |p|/L),
// gamma and eta learned per head and block (eta cap 0.1). No rotation: decay and a shear that
// grows with distance, the Jordan structure without RoPE's phase. Kernel basis
// {1, e^(-gamma d), tau(d) e^(-gamma d)} (the reference's real_jordan probe features).
#include <cmath>

#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_blocks.h"
#include "encodings/jordan_family.h"

namespace poslab {

namespace {
class RealJordan : public JordanEncoding {
 public:
  using JordanEncoding::JordanEncoding;
  // Without a frequency the sine terms vanish: {1, e^(-gamma d), tau(d) e^(-gamma d)}.
  LagBasis basis(const std::vector<double>& lags) const override {
    const double gamma = params().get("gamma"), L = params().get("L");
    LagBasis b;
    b.lags = lags;
    std::vector<double> ones(lags.size(), 1.0), decay(lags.size()), sheared(lags.size());
    for (size_t t = 0; t < lags.size(); ++t) {
      decay[t] = std::exp(-gamma * lags[t]);
      sheared[t] = stabilizedTau(lags[t], L) * decay[t];
    }
    b.add("1", std::move(ones));
    b.add("exp", std::move(decay));
    b.add("tau*exp", std::move(sheared));
    return b;
  }
};
}  // namespace

const FamilyInfo& RealJordanInfo() {
  static const FamilyInfo info{
      "real-jordan",
      "Real Jordan (ω = 0)",
      "s_b = Re( q_b^H e^{−γd}(I + η (τ(i) − τ(j)) N) k_b ),  τ(p) = \\frac{p}{1 + |p|/L}",
      "The reference's real_jordan baseline: Jordan blocks with a real eigenvalue −γ (every "
      "frequency 0), so the score decays and shears with distance but never rotates. It separates "
      "what the Jordan structure adds from what RoPE's phase adds.",
      {common::gamma(), common::eta(), common::contextScale(), common::base(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeRealJordan(ParamSet p) {
  JordanSpec spec = jordanBoundedShearSpec(p, /*order=*/2);
  spec.realEigenvalues = true;
  return std::make_unique<RealJordan>(RealJordanInfo(), std::move(p), spec);
}

}  // namespace poslab
