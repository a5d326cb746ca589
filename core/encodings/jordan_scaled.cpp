// Jordan-RoPE, scaled-exact (docs/MATH.md 1.7.7): gamma = c / L and shear time d / L,
//     G(d) = e^((-c/L + i omega) d)(I + eta (d/L) N).
// Keeps the group law (factorized and direct). c = 1 by default; c = 0.1 is the other published
// setting.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

const FamilyInfo& JordanScaledInfo() {
  static const FamilyInfo info{
      "jordan-scaled",
      "Jordan-RoPE (scaled-exact)",
      "s_b = Re( q_b^H e^{(−c/L + iω)d}(I + η (d/L) N) k_b )",
      "The exact block measured in units of the context scale: decay c/L and shear time d/L. "
      "Keeps the group law, and its growth per context length is fixed by c, not by L.",
      {{"c", 1, 0, 100, false, "decay per context length: gamma = c / L"},
       common::omega(),
       common::eta(),
       common::contextScale(),
       common::pinOmega(),
       common::base(),
       common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeJordanScaled(ParamSet p) {
  const double L = p.get("L");
  JordanSpec spec;
  spec.order = 2;
  spec.kind = ShearKind::Linear;
  spec.gamma = p.get("c") / L;
  spec.shear = p.get("eta") / L;
  spec.viewShear = p.get("eta");
  spec.viewTimeUnit = 1.0 / L;
  spec.L = L;
  spec.timeName = "d/L";
  // gamma = c / L stays fixed; eta is learned in units of d / L.
  spec.learn = {/*gammaGroup=*/-1, /*etaGroup=*/0, /*etaMax=*/1.0, /*shearPerL=*/true};
  return std::make_unique<JordanEncoding>(JordanScaledInfo(), std::move(p), spec);
}

}  // namespace poslab
