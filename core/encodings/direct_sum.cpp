// Direct sum (MATH 1.6): phase and distance in separate subspaces. The first D/2 dims are RoPE
// pairs (theta_c = base^(-2c/(D/2))); the other D/2 dims are real unipotent Jordan blocks (omega =
// 0: decay and shear, no rotation): an undamped block G(d) = I + (d/L) N and a damped block G(d) =
// e^(-gamma d)(I + (tau(d)/L) N), tau(d) = d / (1 + d/L). Kernel basis
//     {1, cos(omega d), sin(omega d), d/L, e^(-gamma d), (tau(d)/L) e^(-gamma d)}:
// both ingredients, never their product. The saturating shear leaves it with the direct form only.
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
    requireHeadDimMultiple(*this, 16,
                           "half the dims are RoPE pairs, the other half an undamped and a damped "
                           "set of 4-real Jordan blocks");
    const long long D = headDim();
    const double L = params().get("L");
    const double gamma = params().get("gamma");
    theta_ = ropeFrequencies(D / 2, params().get("base"));
    if (params().getInt("pin_omega") == 1) theta_.assign(theta_.size(), params().get("omega"));
    const long long pairs = D / 4;          // RoPE half: D/2 dims
    const long long jordanBlocks = D / 16;  // per Jordan kind: D/4 dims of 4-real blocks
    layout_.dim = D;
    layout_.groups.push_back(makeJordanGroup(0, 1, std::vector<double>(pairs, 0.0), theta_,
                                             std::vector<double>(pairs, 0.0), ShearKind::Linear,
                                             L));
    const std::vector<double> zeros(jordanBlocks, 0.0);
    const std::vector<double> shear(jordanBlocks, 1.0 / L);
    layout_.groups.push_back(makeJordanGroup(D / 2, 2, zeros, zeros, shear, ShearKind::Linear, L));
    layout_.groups.push_back(makeJordanGroup(D / 2 + D / 4, 2,
                                             std::vector<double>(jordanBlocks, gamma), zeros, shear,
                                             ShearKind::Saturating, L));
    learnables_.gammaGroup = 2;  // the model learns the damped blocks' decay
  }

  LagBasis basis(const std::vector<double>& lags) const override {
    const double L = params().get("L"), gamma = params().get("gamma"), w = params().get("omega");
    LagBasis b;
    b.lags = lags;
    std::vector<double> one(lags.size(), 1.0), c(lags.size()), s(lags.size()), lin(lags.size()),
        dec(lags.size()), shear(lags.size());
    b.kernel.assign(lags.size(), 0.0);
    for (size_t n = 0; n < lags.size(); ++n) {
      const double d = lags[n];
      c[n] = std::cos(w * d);
      s[n] = std::sin(w * d);
      lin[n] = d / L;
      dec[n] = std::exp(-gamma * d);
      shear[n] = stabilizedTau(d, L) / L * dec[n];
      b.kernel[n] = c[n] + (1.0 + lin[n]) + (dec[n] + shear[n]);  // unit content, each block
    }
    b.add("1", one);
    b.add("cos", c);
    b.add("sin", s);
    b.add("d/L", lin);
    b.add("exp", dec);
    b.add("(tau/L)*exp", shear);
    return b;
  }

  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long) const override {
    const long long D = headDim();
    const double d = static_cast<double>(i - j);
    const double L = params().get("L"), gamma = params().get("gamma");
    double s = 0;
    for (long long c = 0; c < D / 4; ++c)
      s += referenceJordanBlock(q + 2 * c, k + 2 * c, 1, 0.0, theta_[c], 0.0, d);
    for (long long b = 0; b < D / 16; ++b) {
      const long long off = D / 2 + 4 * b;
      s += referenceJordanBlock(q + off, k + off, 2, 0.0, 0.0, d / L, d);
    }
    for (long long b = 0; b < D / 16; ++b) {
      const long long off = D / 2 + D / 4 + 4 * b;
      s += referenceJordanBlock(q + off, k + off, 2, gamma, 0.0, stabilizedTau(d, L) / L, d);
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
      "Direct sum (RoPE ⊕ real Jordan)",
      "K ∈ span\\{1, cos ωd, sin ωd, d/L, e^{−γd}, (τ(d)/L) e^{−γd}\\}",
      "Phase and distance live in separate subspaces: RoPE on half of the head, real decaying "
      "and shearing Jordan blocks on the other half. It has both ingredients but never their "
      "product d·cos(ωd): the control that isolates what the complex Jordan block adds.",
      {common::gamma(), common::omega(), common::pinOmega(), common::contextScale(), common::base(),
       common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeDirectSum(ParamSet p) {
  return std::make_unique<DirectSum>(DirectSumInfo(), std::move(p));
}

}  // namespace poslab
