// Direct sum (MATH 1.6) as the reference code builds it: phase and distance in separate subspaces.
// The first D/2 dims are RoPE pairs (theta_c = base^(-2c/(D/2)), c < D/4); the other D/2 dims are
// D/8 complex Jordan blocks of order 2 with omega = 0 (decay and shear, no rotation) and the
// bounded absolute shear of the trainable Jordan-RoPE:
//     G = e^(-gamma d)(I + eta (tau(i) - tau(j)) N),   tau(p) = p / (1 + |p|/L).
// The model learns gamma and eta per head and block (eta from 0, eta = 0.1 tanh(raw)). Kernel
// basis {1, cos(omega d), sin(omega d), e^(-gamma d), tau(d) e^(-gamma d)}: both ingredients,
// never their product. Factorized (the shear is per absolute position), not relative.
#include <cmath>

#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rotary_encoding.h"
#include "encodings/schedules.h"

namespace poslab {

namespace {
class DirectSum : public RotaryEncoding {
 public:
  DirectSum(const FamilyInfo& info, ParamSet p) : RotaryEncoding(info, std::move(p)) {
    requireHeadDimMultiple(*this, 8,
                           "half the dims are RoPE pairs, the other half 4-real Jordan blocks");
    const long long D = headDim();
    const double L = params().get("L");
    theta_ = ropeFrequencies(D / 2, params().get("base"));
    if (params().getInt("pin_omega") == 1) theta_.assign(theta_.size(), params().get("omega"));
    const long long pairs = D / 4;   // RoPE half: D/2 dims
    const long long blocks = D / 8;  // Jordan half: D/2 dims of 4-real blocks
    layout_.dim = D;
    layout_.groups.push_back(makeJordanGroup(0, 1, std::vector<double>(pairs, 0.0), theta_,
                                             std::vector<double>(pairs, 0.0), ShearKind::Linear,
                                             L));
    layout_.groups.push_back(makeJordanGroup(
        D / 2, 2, std::vector<double>(blocks, params().get("gamma")),
        std::vector<double>(blocks, 0.0), std::vector<double>(blocks, params().get("eta")),
        ShearKind::AbsoluteSaturating, L));
    // The model learns the Jordan half's decay and shear (cap 0.1), as the reference's JordanRoPE.
    learnables_ = {/*gammaGroup=*/1, /*etaGroup=*/1, /*etaMax=*/0.1, /*shearPerL=*/false};
  }

  LagBasis basis(const std::vector<double>& lags) const override {
    const double L = params().get("L"), gamma = params().get("gamma"), w = params().get("omega");
    const double eta = params().get("eta");
    LagBasis b;
    b.lags = lags;
    std::vector<double> one(lags.size(), 1.0), c(lags.size()), s(lags.size()), dec(lags.size()),
        shear(lags.size());
    b.kernel.assign(lags.size(), 0.0);
    for (size_t n = 0; n < lags.size(); ++n) {
      const double d = lags[n];
      c[n] = std::cos(w * d);
      s[n] = std::sin(w * d);
      dec[n] = std::exp(-gamma * d);
      shear[n] = stabilizedTau(d, L) * dec[n];
      b.kernel[n] = c[n] + dec[n] + eta * shear[n];  // unit content in each half
    }
    b.add("1", one);
    b.add("cos", c);
    b.add("sin", s);
    b.add("exp", dec);
    b.add("tau*exp", shear);
    return b;
  }
  // The reference's toy study (causal_delta_features, "direct_sum") also fits the linear ramp
  // d/L, the real unipotent's shear at gamma = 0: the probe fits the family's basis and that ramp.
  LagBasis probeBasis(const std::vector<double>& lags, double) const override {
    LagBasis b = basis(lags);
    std::vector<double> ramp(lags.size());
    for (size_t n = 0; n < lags.size(); ++n) ramp[n] = lags[n] / params().get("L");
    b.add("d/L", ramp);
    return b;
  }

  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long) const override {
    const long long D = headDim();
    const double d = static_cast<double>(i - j);
    const double L = params().get("L"), gamma = params().get("gamma"), eta = params().get("eta");
    const double shearTime =
        eta * (stabilizedTau(static_cast<double>(i), L) - stabilizedTau(static_cast<double>(j), L));
    double s = 0;
    for (long long c = 0; c < D / 4; ++c)
      s += referenceJordanBlock(q + 2 * c, k + 2 * c, 1, 0.0, theta_[c], 0.0, d);
    for (long long b = 0; b < D / 8; ++b) {
      const long long off = D / 2 + 4 * b;
      s += referenceJordanBlock(q + off, k + off, 2, gamma, 0.0, shearTime, d);
    }
    return s / std::sqrt(static_cast<double>(D));
  }

 private:
  std::vector<double> theta_;
};
}  // namespace

const FamilyInfo& DirectSumInfo() {
  static const FamilyInfo info{
      "direct-sum",
      "Direct sum (RoPE ⊕ Jordan, ω = 0)",
      "K ∈ span\\{1, cos ωd, sin ωd, e^{−γd}, τ(d) e^{−γd}\\}",
      "Phase and distance live in separate subspaces: RoPE on half of the head, Jordan blocks "
      "with ω = 0 (decay and bounded absolute shear, no rotation) on the other half, as the "
      "reference code builds it. It has both ingredients but never their product d·cos(ωd): the "
      "control that isolates what the complex Jordan block adds.",
      {common::gamma(), common::eta(), common::omega(), common::pinOmega(), common::contextScale(),
       common::base(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeDirectSum(ParamSet p) {
  return std::make_unique<DirectSum>(DirectSumInfo(), std::move(p));
}

}  // namespace poslab
