// Jordan-RoPE, stabilized (relative) (MATH 1.7.5): the exact block with the bounded shear time
// tau(d) = d / (1 + d/L):
//     s_b = e^(-gamma d)[Re(A e^(i omega d)) + eta tau(d) Re(B e^(i omega d))].
// Breaks the group law, so it exists only in the direct form. The kernel of the paper's probes;
// PosLab's own trainable variant (the reference trains jordan-stabilized-abs), so its name says
// "relative shear" wherever it appears.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

const FamilyInfo& JordanStabilizedInfo() {
  static const FamilyInfo info{
      "jordan-stabilized",
      "Jordan-RoPE (stabilized, relative shear)",
      "s_b = Re( q_b^H e^{λd}(I + η τ(d) N) k_b ),  τ(d) = \\frac{d}{1 + d/L}",
      "The Jordan block with a saturating shear time τ(d) ≤ L: the distance-times-phase feature "
      "stays bounded at any length. It no longer obeys the group law, so it is computed in the "
      "direct (lag) form only.",
      {common::gamma(), common::omega(), common::eta(), common::contextScale(), common::pinOmega(),
       common::base(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeJordanStabilized(ParamSet p) {
  JordanSpec spec;
  spec.order = 2;
  spec.kind = ShearKind::Saturating;
  spec.gamma = p.get("gamma");
  spec.shear = spec.viewShear = p.get("eta");
  spec.L = p.get("L");
  spec.timeName = "tau";
  spec.learn = {/*gammaGroup=*/0, /*etaGroup=*/0, /*etaMax=*/0.1, /*shearPerL=*/false};
  return std::make_unique<JordanEncoding>(JordanStabilizedInfo(), std::move(p), spec);
}

}  // namespace poslab
