// Jordan-RoPE, stabilized with absolute shear (MATH 1.7.6): the reference code's trainable version.
// The factorized form with the shear coordinate saturated per absolute position,
// tau(p) = p / (1 + |p|/L): keys e^(-lambda j)(I - eta tau(j) N) k, queries
// (e^(lambda i)(I + eta tau(i) N))^H q, so s_b = Re(q^H e^(lambda d)(I + eta (tau(i) - tau(j)) N)
// k). Cheap, but the score is no longer a function of the lag alone (its attention map is not
// Toeplitz).
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

const FamilyInfo& JordanStabilizedAbsInfo() {
  static const FamilyInfo info{
      "jordan-stabilized-abs",
      "Jordan-RoPE (stabilized, absolute shear)",
      "s_b = Re( q_b^H e^{λd}(I + η (τ(i) − τ(j)) N) k_b ),  τ(p) = \\frac{p}{1 + |p|/L}",
      "The trainable shortcut of the reference code: saturate the shear per absolute position "
      "and keep the cheap factorized form. The price: τ(i) − τ(j) is not a function of i − j, so "
      "the score is not relative — the same lag scores differently early and late in a sequence.",
      {common::gamma(), common::omega(), common::eta(), common::contextScale(),
       common::boundedShearCap(), common::pinOmega(), common::base(), common::headDim()}};
  return info;
}

JordanSpec jordanBoundedShearSpec(const ParamSet& p, long long order) {
  JordanSpec spec;
  spec.order = order;
  spec.kind = ShearKind::AbsoluteSaturating;
  // A family without a gamma parameter (jordan-no-gamma) has no decay and learns none.
  const bool decays = p.has("gamma");
  spec.gamma = decays ? p.get("gamma") : 0.0;
  spec.shear = spec.viewShear = p.get("eta");
  spec.L = p.get("L");
  spec.timeName = "tau";
  // The cap of the learned shear: the family's eta_max where it has one, else the reference's 0.1.
  const double etaMax = p.has("eta_max") ? p.get("eta_max") : 0.1;
  spec.learn = {/*gammaGroup=*/decays ? 0 : -1, /*etaGroup=*/0, etaMax, /*shearPerL=*/false};
  return spec;
}

std::unique_ptr<Encoding> makeJordanStabilizedAbs(ParamSet p) {
  const JordanSpec spec = jordanBoundedShearSpec(p, /*order=*/2);
  return std::make_unique<JordanEncoding>(JordanStabilizedAbsInfo(), std::move(p), spec);
}

}  // namespace poslab
